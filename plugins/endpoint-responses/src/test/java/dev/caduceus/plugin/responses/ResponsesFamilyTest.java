package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The families the plugin contributes, as the real host serves them (on SQLite and on PostgreSQL): their
 * routes as {@code caduceus plugins} lists them, their features as {@code /v1/capabilities} shows them.
 */
class ResponsesFamilyTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void featuresAndRoutes(Dialect dialect) throws Exception {
        var builder = TestHost.builder().plugins("endpoint-responses", "endpoint-capabilities");
        if (dialect == Dialect.POSTGRESQL) builder.env("CADUCEUS__DATABASE__URL", TestPostgres.shared().newDatabase().url());
        try (var host = builder.start()) {
            var capabilities = host.http().get("/v1/capabilities").json();
            var features = capabilities.path("features");
            JSON.readTree("{\"responses_api\":true,\"responses_streaming\":true,\"responses_event_replay\":true,"
                    + "\"responses_input_items\":true,\"responses_background\":true,\"responses_cancel\":true,\"idempotency\":{\"responses\":{\"supported\":true,\"durable\":false,\"retention_seconds\":300}}}")
                    .fields().forEachRemaining(f -> assertEquals(f.getValue(), features.get(f.getKey()), f.getKey() + " in " + features));
            assertEquals(Map.ofEntries(Map.entry("POST /v1/responses", "responses"),
                    Map.entry("GET /v1/responses", "response_list"), Map.entry("GET /v1/responses/{response_id}", "response"),
                    Map.entry("DELETE /v1/responses/{response_id}", ""),
                    Map.entry("GET /v1/responses/{response_id}/input_items", "response_input_items"),
                    Map.entry("POST /v1/responses/{response_id}/cancel", "response_cancel"),
                    Map.entry("POST /v1/responses/input_tokens", "response_input_tokens"),
                    Map.entry("GET /api/conversations", "conversation_list"),
                    Map.entry("DELETE /api/conversations/{name}", "conversation_delete"),
                    Map.entry("POST /v1/conversations", "conversation_create"),
                    Map.entry("GET /v1/conversations/{conversation_id}", "conversation"),
                    Map.entry("POST /v1/conversations/{conversation_id}", ""),
                    Map.entry("DELETE /v1/conversations/{conversation_id}", ""),
                    Map.entry("GET /v1/conversations/{conversation_id}/items", "conversation_items"),
                    Map.entry("POST /v1/conversations/{conversation_id}/items", ""),
                    Map.entry("GET /v1/conversations/{conversation_id}/items/{item_id}", "conversation_item"),
                    Map.entry("DELETE /v1/conversations/{conversation_id}/items/{item_id}", "")),
                    host.routesOf("endpoint-responses"));
            // the conversations family adds routes and no feature of its own
            assertEquals("/api/conversations", capabilities.path("endpoints").path("conversation_list").path("path").asText());
            assertTrue(capabilities.path("endpoints").has("response_input_items"), capabilities.toString());
        }
    }
}
