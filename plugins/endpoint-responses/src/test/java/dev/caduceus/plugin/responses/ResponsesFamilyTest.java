package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.testkit.FakePlatformContext;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.HashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The family the plugin contributes: its id, base path, features and routes (no request is served). */
class ResponsesFamilyTest {
    @Test
    void featuresAndRoutes(@TempDir Path dir) {
        try (var db = TestDatabase.open(dir, "endpoint-responses")) {
            var ctx = FakePlatformContext.builder("endpoint-responses").database(db).build();
            var plugin = new ResponsesPlugin();
            plugin.start(ctx);
            var family = (ResponsesFamily) plugin.endpoints(ctx).getFirst();
            assertEquals("responses", family.id());
            assertEquals("/v1/responses", family.basePath());
            assertEquals("{\"responses_api\":true,\"responses_streaming\":true,\"responses_event_replay\":true,"
                    + "\"responses_input_items\":true,\"idempotency\":{\"responses\":{\"supported\":true,\"durable\":false,\"retention_seconds\":300}}}",
                    family.features().toString());
            var handlers = new HashMap<String, HttpHandler>();
            family.routes(new Routes() {
                @Override
                public Routes route(String method, String template, String name, HttpHandler h) {
                    handlers.put(method + " " + template, h);
                    return this;
                }
            });
            assertEquals(4, handlers.size());
            assertTrue(handlers.containsKey("POST /v1/responses"));
            assertTrue(handlers.containsKey("GET /v1/responses/{response_id}"));
            assertTrue(handlers.containsKey("GET /v1/responses/{response_id}/input_items"));
            assertTrue(handlers.containsKey("DELETE /v1/responses/{response_id}"));
        }
    }
}
