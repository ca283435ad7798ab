package dev.caduceus.platform.testkit;

import dev.caduceus.spi.HealthChecks;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Records registered checks so a test can run them. Thread-safe. */
public final class FakeHealthChecks implements HealthChecks {
    private final Map<String, Supplier<Result>> checks = new ConcurrentHashMap<>();

    @Override
    public void register(String name, Supplier<Result> check) {
        if (checks.putIfAbsent(name, check) != null) throw new IllegalArgumentException("duplicate check: " + name);
    }

    /** Runs the named check. */
    public Result run(String name) {
        var check = checks.get(name);
        if (check == null) throw new IllegalArgumentException("no check named " + name);
        return check.get();
    }

    public Map<String, Supplier<Result>> registered() {
        return Map.copyOf(checks);
    }
}
