package dev.caduceus.platform.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.json.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testkit's values: a real-SQLite database with a plugin's migrations, an exchange and an event
 * stream to hand a handler. The host itself is {@link TestHostTest}'s.
 */
class TestkitTest {
    @TempDir Path dir;

    @Test
    void testDatabaseAppliesThePluginsOwnMigrationsOnRealSqlite() {
        try (var db = TestDatabase.open(dir, "sample")) {
            db.write(sql -> sql.update("INSERT INTO sample_items (id, n, label) VALUES (?, ?, ?)", "a", 1, "x"));
            var label = db.read(sql -> sql.queryOne("SELECT label FROM sample_items WHERE id = ?",
                    row -> row.getString(1), "a"));
            assertEquals("x", label.orElseThrow());
        }
    }

    @Test
    void fakeExchangeTurnsStatusExceptionsIntoTheEnvelope() throws Exception {
        var exchange = new FakeExchange(Json.newMapper(), "POST", "/v1/x").body("{not json").call(ex -> ex.body());
        assertEquals(400, exchange.status());
        assertEquals("invalid_json", exchange.responseBody().path("error").path("code").asText());
        assertTrue(exchange.responseBody().path("error").path("param").isNull());
    }

    @Test
    void recordingStreamSimulatesADisconnect() throws Exception {
        var stream = new RecordingEventStream().disconnectAfter(1);
        stream.comment("one");
        assertThrows(dev.caduceus.spi.http.ClientGoneException.class, () -> stream.comment("two"));
        assertEquals(1, stream.frames().size());
    }
}
