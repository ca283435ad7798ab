package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults on the real host: a run that fails, and a client leaving a non-streaming request.
 */
class ResponsesFaultTest {
    /**
     * A run that fails inside the host (its model refuses the request) is a response with
     * status {@code failed} and a 200, or a stream that ends with {@code response.failed}, and the failed
     * response is stored; on SQLite and on PostgreSQL. (The handler's defence against {@code await}
     * itself throwing cannot be reached on the real host: the run service turns a runtime's exception
     * into a failed run first.)
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aFailedRunIsAFailedResponseNotA500(Dialect dialect) throws Exception {
        var env = dialect == Dialect.POSTGRESQL
                ? new String[] {"CADUCEUS__DATABASE__URL", TestPostgres.shared().newDatabase().url()} : new String[0];
        try (var api = ResponsesHost.start(env)) {
            api.upstream.enqueue(Turn.error(400, "the model refused the request")); // not retried
            var ex = api.post("{\"input\":\"hi\"}");
            assertEquals(200, ex.status(), ex.body());
            assertEquals("failed", ex.json().get("status").asText(), ex.body());
            assertFalse(ex.json().path("error").path("message").asText().isEmpty(), ex.body());
            var stored = api.get(ex.json().get("id").asText());
            assertEquals(200, stored.status(), stored.body());
            assertEquals("failed", stored.json().get("status").asText(), stored.body());

            api.upstream.clearQueue().enqueue(Turn.error(400, "the model refused the request"));
            var last = api.stream("{\"input\":\"hi\",\"stream\":true}").stream()
                    .filter(f -> f.event() != null).toList().getLast();
            assertEquals("response.failed", last.event());
            assertEquals("response.failed", last.data().get("type").asText());
        }
    }

    @Test
    void aClientThatLeavesANonStreamingRequestCancelsTheRun() throws Exception {
        try (var api = ResponsesHost.start()) {
            var held = new HeldTurn(Turn.text("too late"));
            api.upstream.enqueue(held);
            try (var socket = api.postRaw("{\"input\":\"hi\"}")) {
                held.awaitArrival();
                assertEquals(1, api.activeRuns());
                socket.close(); // the client leaves while the model thinks
                // The model has not answered: only a cancellation can have ended the run.
                api.awaitNoActiveRun("the run is cancelled when its client leaves");
            } finally {
                held.release();
            }
        }
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(ResponsesPlugin.class.getName(), Files.readString(file).trim());
        assertTrue(Files.exists(Path.of("src/main/resources/db/migration/endpoint-responses/sqlite/V1__responses.sql")));
        assertTrue(Files.exists(Path.of("src/main/resources/db/migration/endpoint-responses/postgresql/V1__responses.sql")));
    }
}
