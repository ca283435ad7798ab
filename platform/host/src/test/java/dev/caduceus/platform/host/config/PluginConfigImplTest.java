package dev.caduceus.platform.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginConfigImplTest {
    @TempDir
    Path dir;
    Path file;
    PluginConfigImpl cfg;

    @BeforeEach
    void load() throws IOException {
        file = Files.writeString(dir.resolve("c.yaml"), """
                plugins:
                  tool-web:
                    engine: brave
                    retries: 3
                    big: 5000000000
                    enabled: true
                    timeout: 500ms
                    backoff: 5m
                    hosts: [a.example, b.example]
                    limits: {max: 7, min: 1}
                    api_key: [not-a-string-secret]
                    port: abc
                    unused: 1
                  other: {x: 1}
                """);
        var config = new ConfigLoader(Map.of("CADUCEUS__PLUGINS__TOOL_WEB__WORKERS", "12",
                "CADUCEUS__PLUGINS__TOOL_WEB__TAGS", "x, y"), dir)
                .load(Optional.of(file), List.of()).config();
        cfg = config.pluginConfig("tool-web");
    }

    @Test
    void typedGettersConvert() {
        assertEquals(Optional.of("brave"), cfg.string("engine"));
        assertEquals("d", cfg.string("missing", "d"));
        assertEquals(3, cfg.integer("retries", 0));
        assertEquals(12, cfg.integer("workers", 0));
        assertEquals(5_000_000_000L, cfg.longValue("big", 0));
        assertTrue(cfg.bool("enabled", false));
        assertEquals(Duration.ofMillis(500), cfg.duration("timeout", Duration.ZERO));
        assertEquals(Duration.ofMinutes(5), cfg.duration("backoff", Duration.ZERO));
        assertEquals(Duration.ofSeconds(3), cfg.duration("retries", Duration.ZERO));
        assertEquals(List.of("a.example", "b.example"), cfg.list("hosts", List.of()));
        assertEquals(List.of("x", "y"), cfg.list("tags", List.of()));
        assertEquals(7, cfg.integer("limits.max", 0));
        assertEquals(7, cfg.node("limits").orElseThrow().get("max").asInt());
        assertEquals(List.of("z"), cfg.list("none", List.of("z")));
    }

    @Test
    void wrongTypeNamesFullKeyAndSource() {
        var e = assertThrows(ConfigException.class, () -> cfg.integer("port", 0));
        assertEquals("plugins.tool-web.port", e.key());
        assertTrue(e.getMessage().contains("plugins.tool-web.port in " + file + ": \"abc\" is not an integer"),
                e.getMessage());
        var d = assertThrows(ConfigException.class, () -> cfg.duration("engine", Duration.ZERO));
        assertTrue(d.getMessage().contains("is not a duration"), d.getMessage());
        var env = assertThrows(ConfigException.class, () -> cfg.bool("workers", false));
        assertTrue(env.getMessage().contains("environment variable CADUCEUS__PLUGINS__TOOL_WEB__WORKERS"), env.getMessage());
        var secret = assertThrows(ConfigException.class, () -> cfg.string("api_key"));
        assertFalse(secret.getMessage().contains("not-a-string-secret"), secret.getMessage());
    }

    @Test
    void tracksUnreadKeys() {
        cfg.string("engine");
        cfg.integer("retries", 0);
        cfg.node("limits");
        cfg.list("hosts", List.of());
        assertEquals(Set.of("big", "enabled", "timeout", "backoff", "api_key", "port", "unused", "workers", "tags"),
                cfg.unreadKeys());
    }
}
