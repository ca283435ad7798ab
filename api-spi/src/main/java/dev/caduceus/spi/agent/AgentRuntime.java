package dev.caduceus.spi.agent;

/**
 * How a run is executed: the platform's local agent loop, or a plugin's alternative (the relay).
 * One runtime is selected per deployment at boot ({@code agent.runtime}).
 *
 * <p>Threading: {@link #execute} is called on the run's own virtual thread, concurrently for
 * different runs. It blocks until the turn ends, emits non-terminal events through the context, and
 * returns the result, from which the host writes the terminal event. It must return promptly after
 * {@link RunContext#cancellation()} fires.
 */
public interface AgentRuntime {

    /** The runtime id: {@code local}, {@code relay}. */
    String id();

    /** Executes one agent turn. Exceptions become a failed run with code {@code internal_error}. */
    RunResult execute(RunRequest request, RunContext context) throws Exception;
}
