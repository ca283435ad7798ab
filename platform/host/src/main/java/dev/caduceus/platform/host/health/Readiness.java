package dev.caduceus.platform.host.health;

import dev.caduceus.spi.HealthChecks;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry of named readiness checks: the core's own, then those plugins register through
 * {@link HealthChecks}. A check that throws reads {@code degraded} with the exception's class name
 * only (never its message, which could carry a path or a secret).
 */
public final class Readiness implements HealthChecks {
    private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);

    private final Map<String, Supplier<Result>> checks = new LinkedHashMap<>();

    @Override
    public synchronized void register(String name, Supplier<Result> check) {
        if (checks.putIfAbsent(name, check) != null)
            throw new IllegalArgumentException("A readiness check named '" + name + "' is already registered");
    }

    /** Runs every check, in registration order. */
    public Map<String, Result> runAll() {
        Map<String, Supplier<Result>> snapshot;
        synchronized (this) {
            snapshot = new LinkedHashMap<>(checks);
        }
        var results = new LinkedHashMap<String, Result>();
        snapshot.forEach((name, check) -> results.put(name, run(name, check)));
        return results;
    }

    private static Result run(String name, Supplier<Result> check) {
        try {
            return check.get();
        } catch (RuntimeException e) {
            LOG.warn("Readiness check {} failed", name, e);
            return Result.degraded(Map.of("error", e.getClass().getName()));
        }
    }
}
