package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.platform.testkit.FakePlatformContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunsPluginTest {

    @Test
    void contributesOneFamilyWithEveryRouteOfSection9NamedForCapabilities() {
        var ctx = FakePlatformContext.builder("endpoint-runs").build();
        var families = new RunsPlugin().endpoints(ctx);
        assertEquals(1, families.size());
        var family = families.getFirst();
        assertEquals("runs", family.id());
        assertEquals("/v1/runs", family.basePath());
        var routes = new LinkedHashMap<String, String>();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler handler) {
                routes.put(method + " " + template, name);
                return this;
            }
        });
        assertEquals(Map.of(
                "POST /v1/runs", "runs",
                "GET /v1/runs", "run_list",
                "GET /v1/runs/{run_id}", "run_status",
                "GET /v1/runs/{run_id}/events", "run_events",
                "POST /v1/runs/{run_id}/approval", "run_approval",
                "POST /v1/runs/{run_id}/steer", "run_steer",
                "POST /v1/runs/{run_id}/stop", "run_stop"), routes);
    }

    @Test
    void advertisesTheRunsFeaturesAndDurableIdempotency() {
        var ctx = FakePlatformContext.builder("endpoint-runs").sections(Map.of("runs.idempotency_retention_hours", "48"))
                .build();
        var family = new RunsPlugin().endpoints(ctx).getFirst();
        assertEquals("{\"run_submission\":true,\"run_status\":true,\"run_events_sse\":true,\"run_stop\":true,"
                + "\"run_approval_response\":true,\"run_steer\":true,\"approval_events\":true,\"run_list\":true,"
                + "\"run_events_resume\":true,\"model_options\":true,\"session_key_header\":\"X-Hermes-Session-Key\","
                + "\"idempotency\":{\"runs\":{\"supported\":true,\"durable\":true,\"retention_seconds\":172800}}}",
                family.features().toString());
    }

    @Test
    void theDefaultRetentionIs24Hours() {
        var family = new RunsPlugin().endpoints(FakePlatformContext.builder("endpoint-runs").build()).getFirst();
        assertEquals(86400, family.features().get("idempotency").get("runs").get("retention_seconds").asLong());
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(RunsPlugin.class.getName(), Files.readString(file).trim());
    }
}
