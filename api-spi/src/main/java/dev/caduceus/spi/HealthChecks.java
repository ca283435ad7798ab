package dev.caduceus.spi;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Readiness checks contributed to {@code GET /health/detailed}.
 *
 * <p>Threading: thread-safe; checks are invoked on request threads, possibly concurrently, and must
 * return within a couple of seconds. Lifecycle: register during {@link PlatformPlugin#start}; checks
 * stay registered until shutdown.
 */
public interface HealthChecks {

    /** Registers a named check; names are unique per deployment. */
    void register(String name, Supplier<Result> check);

    /**
     * The outcome of one check. {@code details} holds statuses and counts only: never paths,
     * messages, configuration values or credentials. Iteration order is kept in the JSON.
     */
    record Result(boolean ok, Map<String, Object> details) {
        public Result {
            requireNonNull(details, "details");
            details = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(details)); // keeps order
        }

        public static Result healthy() { return new Result(true, Map.of()); }

        public static Result healthy(Map<String, Object> details) { return new Result(true, details); }

        public static Result degraded(Map<String, Object> details) { return new Result(false, details); }
    }
}
