package dev.caduceus.platform.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void fakeContextReadsPluginSettingsThroughTheRealLoader() {
        var ctx = FakePlatformContext.builder("tool-terminal")
                .config(Map.of("timeout", "2m", "limits.max_lines", "40")).build();
        assertEquals(Duration.ofMinutes(2), ctx.config().duration("timeout", Duration.ZERO));
        assertEquals(40, ctx.config().integer("limits.max_lines", 0));
        var bad = FakePlatformContext.builder("tool-terminal").config(Map.of("timeout", "soon")).build();
        var e = assertThrows(ConfigException.class, () -> bad.config().duration("timeout", Duration.ZERO));
        assertTrue(e.getMessage().contains("plugins.tool-terminal.timeout"), e.getMessage());
    }

    @Test
    void fakeContextHasNoServiceUnlessGiven() {
        var type = dev.caduceus.support.services.ResponseHistory.class;
        assertTrue(FakePlatformContext.builder("x").build().service(type).isEmpty());
        dev.caduceus.support.services.ResponseHistory history = (owner, id) -> java.util.Optional.empty();
        assertSame(history, FakePlatformContext.builder("x").service(type, history).build().service(type).orElseThrow());
    }

    @Test
    void fakeExchangeTurnsStatusExceptionsIntoTheEnvelope() throws Exception {
        var ctx = FakePlatformContext.builder("x").build();
        var exchange = new FakeExchange(ctx.json(), "POST", "/v1/x").body("{not json").call(ex -> ex.body());
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
