package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One logging backend, as an operator sees stderr: the platform's lines and a plugin's
 * {@code System.Logger} line (the terminal plugin's warning that it runs commands unsandboxed, forced
 * by pointing {@code tools.terminal.sandbox.bwrap} nowhere) come out in one format, text by default,
 * one JSON object per line with {@code logging.format: json}, and obey {@code CADUCEUS_LOG_LEVEL} and
 * {@code logging.levels}.
 */
class LoggingIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String PLUGIN_LOGGER = "dev.caduceus.plugin.terminal.TerminalPlugin";
    static final String PLUGIN_WARNING = "terminal: terminal commands run UNSANDBOXED on the host";
    static final Pattern TEXT = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR) \\[[^\\]]+\\] \\S+ - .*");

    @TempDir Path home;

    /** The environment of a server whose terminal plugin warns through {@code System.Logger} at start. */
    Map<String, String> env(String... more) {
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS__TOOLS__TERMINAL__BACKEND", "auto");
        env.put("CADUCEUS__TOOLS__TERMINAL__SANDBOX__BWRAP", home.resolve("no-such-bwrap").toString());
        for (int i = 0; i < more.length; i += 2) env.put(more[i], more[i + 1]);
        return env;
    }

    /** Starts the server, asks it something, stops it and returns every line it wrote to stderr. */
    List<String> stderrOfARun(Map<String, String> env) throws Exception {
        try (var server = Caduceus.serve(home, env)) {
            assertEquals(200, server.get("/health", Map.of()).statusCode());
            assertEquals(404, server.get("/v1/no-such-route", Caduceus.KEY_AUTH).statusCode());
            server.terminate();
            server.awaitExit(); // everything it wrote has been read
            return server.stderr().lines().toList();
        }
    }

    @Test
    void withJsonFormatEveryStderrLineIsAJsonObjectAndThePluginsLineIsOneOfThem() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "logging:\n  format: json\n");
        var lines = stderrOfARun(env());
        var events = new ArrayList<JsonNode>();
        for (var line : lines) {
            try {
                var node = JSON.readTree(line);
                assertTrue(node.isObject(), line);
                events.add(node);
            } catch (Exception e) {
                fail("not a JSON object: " + line + "\nall of stderr:\n" + String.join("\n", lines));
            }
        }
        var plugin = events.stream().filter(e -> e.path("logger").asText().equals(PLUGIN_LOGGER)).findFirst()
                .orElseThrow(() -> new AssertionError("no line from the plugin's System.Logger:\n" + String.join("\n", lines)));
        assertEquals("WARN", plugin.path("level").asText());
        assertTrue(plugin.path("message").asText().startsWith(PLUGIN_WARNING), plugin.toString());
        var platform = events.stream().filter(e -> e.path("message").asText().equals("Caduceus stopped")).findFirst()
                .orElseThrow(() -> new AssertionError("no platform line:\n" + String.join("\n", lines)));
        for (var event : List.of(plugin, platform)) {
            assertTrue(event.path("time").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"), event.toString());
            for (var field : List.of("level", "logger", "thread", "message")) assertTrue(event.path(field).isTextual(), event + ": " + field);
        }
        assertTrue(platform.path("logger").asText().startsWith("dev.caduceus.platform."), platform.toString());
    }

    @Test
    void textIsTheDefaultAndThePluginsLineHasThePlatformsFormat() throws Exception {
        var lines = stderrOfARun(env());
        var plugin = lines.stream().filter(l -> l.contains(PLUGIN_WARNING)).findFirst()
                .orElseThrow(() -> new AssertionError("no line from the plugin:\n" + String.join("\n", lines)));
        assertTrue(TEXT.matcher(plugin).matches(), plugin);
        assertTrue(plugin.contains(" WARN [") && plugin.contains("] TerminalPlugin - " + PLUGIN_WARNING), plugin);
        var stopped = lines.stream().filter(l -> l.endsWith(" - Caduceus stopped")).findFirst()
                .orElseThrow(() -> new AssertionError("no platform line:\n" + String.join("\n", lines)));
        assertTrue(TEXT.matcher(stopped).matches() && stopped.contains(" INFO ["), stopped);
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("WARNING: ") || l.matches("\\w{3} \\d\\d, \\d{4} .*")),
                "nothing in java.util.logging's own format:\n" + String.join("\n", lines));
    }

    @Test
    void thePluginsLineObeysTheLevelsPerPackageAndTheEnvironmentVariable() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "logging:\n  levels:\n    dev.caduceus.plugin.terminal: error\n");
        var quietPackage = stderrOfARun(env());
        assertFalse(String.join("\n", quietPackage).contains(PLUGIN_WARNING), String.join("\n", quietPackage));
        assertTrue(quietPackage.stream().anyMatch(l -> l.endsWith(" - Caduceus stopped")), "the rest still logs");

        Files.writeString(home.resolve("config.yaml"), "logging:\n  level: info\n");
        var quietRoot = stderrOfARun(env("CADUCEUS_LOG_LEVEL", "error"));
        assertFalse(String.join("\n", quietRoot).contains(PLUGIN_WARNING), "the variable wins over the file:\n"
                + String.join("\n", quietRoot));

        Files.writeString(home.resolve("config.yaml"), "logging:\n  level: error\n  levels:\n    dev.caduceus.plugin: warn\n");
        var enabled = stderrOfARun(env());
        assertTrue(String.join("\n", enabled).contains(PLUGIN_WARNING), "enabled for its package:\n" + String.join("\n", enabled));
        assertFalse(enabled.stream().anyMatch(l -> l.endsWith(" - Caduceus stopped")), "the platform's info lines are not");
    }

    @Test
    void debugLinesAppearOnlyWhenAskedForAndTheJdksOwnSystemLoggerLinesToo() throws Exception {
        var info = stderrOfARun(env("CADUCEUS__LOGGING__FORMAT", "json"));
        assertFalse(info.stream().anyMatch(l -> l.contains("\"level\":\"DEBUG\"")), String.join("\n", info));
        var debug = new ArrayList<JsonNode>();
        for (var line : stderrOfARun(env("CADUCEUS_LOG_LEVEL", "debug", "CADUCEUS__LOGGING__FORMAT", "json")))
            debug.add(JSON.readTree(line));
        // java.base logs Runtime.exit at debug through System.Logger (JDK 21+): the JDK's lines are bridged too
        assertTrue(debug.stream().anyMatch(e -> e.path("level").asText().equals("DEBUG")
                && e.path("logger").asText().equals("java.lang.Runtime")), debug.toString());
        assertFalse(debug.stream().anyMatch(e -> e.path("level").asText().equals("DEBUG")
                && e.path("logger").asText().startsWith("org.eclipse.jetty")), "Jetty stays at warn unless logging.levels names it");
    }

    @Test
    void anInvalidLevelIsAUsageErrorNamingTheVariableOrTheKeyAndFile() throws Exception {
        try (var process = Caduceus.launch(home, env("CADUCEUS_LOG_LEVEL", "verbose"), "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains("caduceus: Invalid value for logging.level in environment variable "
                    + "CADUCEUS_LOG_LEVEL: \"verbose\" is not one of trace, debug, info, warn, error, off"), process.stderr());
        }
        var config = Files.writeString(home.resolve("config.yaml"), "logging:\n  levels:\n    dev.caduceus: loud\n");
        try (var process = Caduceus.launch(home, env(), "serve")) {
            assertEquals(2, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains("logging.levels.dev.caduceus") && err.contains(config.toString()), err);
            assertFalse(err.contains("\tat "), "no stack trace: " + err);
        }
    }
}
