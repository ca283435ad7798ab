package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The families the plugin contributes: their ids, base paths, features and routes (no request is served). */
class ResponsesFamilyTest {
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void featuresAndRoutes(Dialect dialect, @TempDir Path dir) {
        try (var db = TestDatabase.open(dir, "endpoint-responses", dialect)) {
            var ctx = FakePlatformContext.builder("endpoint-responses").database(db).build();
            var plugin = new ResponsesPlugin();
            plugin.start(ctx);
            var families = plugin.endpoints(ctx);
            assertEquals(2, families.size());
            var family = (ResponsesFamily) families.getFirst();
            assertEquals("responses", family.id());
            assertEquals("/v1/responses", family.basePath());
            assertEquals("{\"responses_api\":true,\"responses_streaming\":true,\"responses_event_replay\":true,"
                    + "\"responses_input_items\":true,\"idempotency\":{\"responses\":{\"supported\":true,\"durable\":false,\"retention_seconds\":300}}}",
                    family.features().toString());
            assertEquals(Map.of("POST /v1/responses", "responses", "GET /v1/responses", "response_list",
                    "GET /v1/responses/{response_id}", "response", "DELETE /v1/responses/{response_id}", "",
                    "GET /v1/responses/{response_id}/input_items", "response_input_items"), routes(family));

            var conversations = families.get(1);
            assertEquals("conversations", conversations.id());
            assertEquals("/api/conversations", conversations.basePath());
            assertEquals("{}", conversations.features().toString());
            assertEquals(Map.of("GET /api/conversations", "conversation_list",
                    "DELETE /api/conversations/{name}", "conversation_delete"), routes(conversations));
        }
    }

    /** Method and template → capability name ("" for none) of every route {@code family} registers. */
    private static Map<String, String> routes(EndpointFamily family) {
        var routes = new HashMap<String, String>();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                assertTrue(h != null);
                routes.put(method + " " + template, name == null ? "" : name);
                return this;
            }
        });
        return routes;
    }
}
