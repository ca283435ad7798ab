package dev.caduceus.platform.runtime.routing;

import dev.caduceus.spi.HealthChecks.Result;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@code model_routes} check of {@code /health/detailed}: each route's deployments with their state ({@code ok};
 * {@code cooling_down} with {@code until} and the failure; {@code failing}: failed last time, tried again), model and
 * calls in flight. Degraded while some route has no deployment that is not cooling down. Stateless.
 */
public final class RouteHealth {
    private RouteHealth() {}

    public static Supplier<Result> check(RouteTable table, Clock clock) {
        return () -> {
            long now = clock.millis();
            var details = new LinkedHashMap<String, Object>();
            boolean ok = true;
            for (var route : table.all()) {
                var deployments = new LinkedHashMap<String, Object>();
                boolean any = false;
                for (var d : route.deployments()) {
                    var state = d.state(now);
                    any |= !state.state().equals("cooling_down");
                    var entry = new LinkedHashMap<String, Object>();
                    entry.put("state", state.state());
                    entry.put("model", state.model());
                    if (state.coolingUntil() > 0) entry.put("until", Instant.ofEpochMilli(state.coolingUntil()).toString());
                    if (state.lastFailure() != null) entry.put("last_failure", state.lastFailure());
                    entry.put("in_flight", state.inFlight());
                    deployments.put(state.deployment(), entry);
                }
                ok &= any;
                details.put(route.name(), Map.of("deployments", deployments, "fallbacks", route.fallbacks()));
            }
            return ok ? Result.healthy(details) : Result.degraded(details);
        };
    }
}
