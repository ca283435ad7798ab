package dev.caduceus.platform.host.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.HttpExchange;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.function.IntSupplier;

/**
 * The platform's own health handlers: {@code /health} and {@code /v1/health} are
 * public and do no I/O; {@code /health/detailed} runs every readiness check and always answers 200,
 * degraded or not.
 */
public final class HealthRoutes {
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx");

    private final ObjectMapper json;
    private final Readiness readiness;
    private final GatewayState state;
    private final IntSupplier activeAgents;
    private final String version;
    private final Clock clock;
    private final java.util.function.Supplier<java.util.Map<String, Long>> requestsByKey;

    /** @param requestsByKey requests authenticated so far, by key name (never the key) */
    public HealthRoutes(ObjectMapper json, Readiness readiness, GatewayState state, IntSupplier activeAgents,
                        String version, Clock clock, java.util.function.Supplier<java.util.Map<String, Long>> requestsByKey) {
        this.requestsByKey = requestsByKey;
        this.json = json;
        this.readiness = readiness;
        this.state = state;
        this.activeAgents = activeAgents;
        this.version = version;
        this.clock = clock;
    }

    /** {@code GET /health}, {@code GET /v1/health}. */
    public void health(HttpExchange exchange) {
        exchange.respond(200, json.createObjectNode().put("status", "ok").put("platform", "hermes-agent")
                .put("version", version));
    }

    /** {@code GET /health/detailed}. */
    public void detailed(HttpExchange exchange) {
        var document = detailedDocument();
        // Requests by key name: the admin sees every key; a named key only itself (other tenants' names are theirs).
        var keys = document.putObject("keys");
        var caller = exchange.caller();
        requestsByKey.get().forEach((name, count) -> {
            if (caller.admin() || caller.name().equals(name)) keys.putObject(name).put("requests", count);
        });
        exchange.respond(200, document);
    }

    ObjectNode detailedDocument() {
        var checks = json.createObjectNode();
        var allOk = true;
        for (var entry : readiness.runAll().entrySet()) {
            var result = entry.getValue();
            allOk &= result.ok();
            var node = checks.putObject(entry.getKey()).put("status", result.ok() ? "ok" : "degraded");
            node.setAll((ObjectNode) json.valueToTree(result.details()));
        }
        var status = allOk ? "ok" : "degraded";
        var now = OffsetDateTime.ofInstant(clock.instant().truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC).format(ISO);
        var active = activeAgents.getAsInt();
        var root = json.createObjectNode().put("status", status);
        root.putObject("readiness").put("status", status).set("checks", checks);
        root.put("platform", "hermes-agent").put("version", version).put("gateway_state", state.wireName());
        root.putObject("platforms").putObject("api_server")
                .put("state", state.get() == GatewayState.State.RUNNING ? "connected" : state.wireName())
                .putNull("error_code").putNull("error_message").put("updated_at", now);
        root.put("active_agents", active)
                .put("gateway_busy", active > 0)
                .put("gateway_drainable", true)
                .putNull("exit_reason")
                .put("updated_at", now)
                .put("pid", ProcessHandle.current().pid());
        return root;
    }
}
