package dev.caduceus.platform.runtime.agent;

/**
 * The loop's limits and model defaults. Immutable.
 *
 * @param model            the configured upstream model id ({@code model.name}), or null
 * @param maxIterations    {@code agent.max_iterations}, used when a request does not set its own
 * @param maxParallelTools {@code agent.max_parallel_tools}
 * @param stream           {@code model.stream}
 * @param retries          waits between retries of retryable upstream failures
 */
public record AgentSettings(String model, int maxIterations, int maxParallelTools, boolean stream,
                            RetryPolicy retries) {
    public AgentSettings {
        if (maxIterations < 1) throw new IllegalArgumentException("maxIterations must be >= 1");
        if (maxParallelTools < 1) throw new IllegalArgumentException("maxParallelTools must be >= 1");
        java.util.Objects.requireNonNull(retries, "retries");
    }
}
