package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.PluginJarAssertions;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up failures a person must understand, the CLI's help, and the shipped jars. */
class StartupIT {
    @TempDir Path home;

    @Test
    void malformedConfigYamlFailsNamingFileAndLine() throws Exception {
        var config = home.resolve("config.yaml");
        Files.writeString(config, "server:\n  port: 8642\n   host: [unclosed\n");
        try (var process = Caduceus.launch(home, Map.of(), "serve")) {
            assertEquals(2, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains(config.toString()), err);
            assertTrue(err.contains("line 3"), err);
            assertFalse(err.contains("\tat "), "no stack trace: " + err);
        }
    }

    @Test
    void aMalformedValueFailsNamingTheKeyAndItsSource() throws Exception {
        var config = home.resolve("custom.yaml");
        Files.writeString(config, "approvals:\n  mode: sometimes\n");
        try (var process = Caduceus.launch(home, Map.of(), "serve", "--config", config.toString())) {
            assertEquals(2, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains("approvals.mode") && err.contains(config.toString()), err);
        }
    }

    @Test
    void aShortKeyIsRefusedNamingTheVariable() throws Exception {
        try (var process = Caduceus.launch(home, Map.of("API_SERVER_KEY", "short-key"), "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains("API_SERVER_KEY is too short (9 characters)"), process.stderr());
            assertFalse(process.stderr().contains("\tat "), process.stderr());
        }
    }

    @Test
    void aBusyPortIsExitStatusTwoWithAClearMessage() throws Exception {
        try (var taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
             var process = Caduceus.launch(home, Map.of("API_SERVER_PORT", String.valueOf(taken.getLocalPort())),
                     "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains("Port " + taken.getLocalPort() + " is already in use (API_SERVER_PORT)"),
                    process.stderr());
        }
    }

    /**
     * The banner is the one place the start-up output lists the plugins: each shipped plugin is named once
     * in stdout and stderr together, and the log has one summary line at info.
     */
    @Test
    void theBannerIsTheOnePlaceThatListsThePlugins() throws Exception {
        try (var server = Caduceus.serve(home, Caduceus.KEY_ENV)) {
            var output = server.stdout() + server.stderr();
            var plugins = java.util.regex.Pattern.compile("(?m)^            (\\S+) \\S+ \\[").matcher(server.stdout())
                    .results().map(m -> m.group(1)).toList();
            assertTrue(plugins.size() >= 15, server.stdout());
            for (var plugin : plugins)
                assertEquals(1, output.split(java.util.regex.Pattern.quote(plugin + " "), -1).length - 1
                        + output.split(java.util.regex.Pattern.quote("'" + plugin + "'"), -1).length - 1, plugin + ":\n" + output);
            assertTrue(server.stderr().contains("PluginHost - Plugins from "), server.stderr());
            assertTrue(server.stderr().contains(": " + plugins.size() + " enabled, 0 off"), server.stderr());
        }
    }

    @Test
    void laterStartsReuseTheKeyFileWithoutPrintingIt() throws Exception {
        String key;
        try (var first = Caduceus.serve(home, Map.of())) {
            key = first.key();
        }
        try (var second = Caduceus.serve(home, Map.of())) {
            assertEquals(200, second.get("/v1/models", bearer(key)).statusCode(), "the key of the first start");
            assertFalse(second.stdout().contains(key), "the key is printed only on the start that created it");
            assertTrue(second.stdout().contains("key hash in " + home.resolve("api_key")), second.stdout());
        }
    }

    @Test
    void aClearTextKeyFileFromAnOlderVersionIsReplacedByItsHashAndTheKeyKeepsWorking() throws Exception {
        var keyFile = home.resolve("api_key");
        var old = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        Files.writeString(keyFile, old + "\n");
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        try (var server = Caduceus.serve(home, Map.of())) {
            var stored = Files.readString(keyFile);
            assertTrue(stored.matches("sha256:[0-9a-f]{32}:[0-9a-f]{64}\n"), stored);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
            assertEquals(200, server.get("/v1/models", bearer(old)).statusCode(), "the old key authenticates");
            assertEquals(401, server.get("/v1/models", bearer(old.substring(1) + "0")).statusCode());
            assertTrue(server.stderr().contains("Replaced the clear-text API key in " + keyFile), server.stderr());
            assertFalse(server.stdout().contains(old) || server.stderr().contains(old), "never printed");
        }
    }

    @Test
    void keyShowExplainsWhyItCannotAndKeyRotatePrintsTheNewKeyOnce() throws Exception {
        try (var show = Caduceus.launch(home, Map.of(), "key", "show")) {
            assertEquals(2, show.awaitExit());
            assertTrue(show.stderr().contains("no key file at " + home.resolve("api_key")), show.stderr());
        }
        String key;
        try (var rotate = Caduceus.launch(home, Map.of(), "key", "rotate")) {
            assertEquals(0, rotate.awaitExit());
            var m = java.util.regex.Pattern.compile("(?m)^    ([0-9a-f]{64})$").matcher(rotate.stdout());
            assertTrue(m.find(), rotate.stdout());
            key = m.group(1);
        }
        assertFalse(Files.readString(home.resolve("api_key")).contains(key));
        try (var show = Caduceus.launch(home, Map.of(), "key", "show")) {
            assertEquals(2, show.awaitExit());
            assertEquals("", show.stdout(), "nothing a script could take for the key");
            assertTrue(show.stderr().contains("holds only its salted hash") && show.stderr().contains("key rotate"),
                    show.stderr());
        }
        try (var server = Caduceus.serve(home, Map.of())) {
            assertEquals(200, server.get("/v1/models", bearer(key)).statusCode(), "the rotated key is in force");
            assertFalse(server.stdout().contains(key));
        }
    }

    @Test
    void aWorkspaceThatContainsTheStateDirectoryIsRefused() throws Exception {
        var state = home.resolve("state");
        try (var process = Caduceus.launch(state, Map.of("CADUCEUS__TOOLS__WORKSPACE", home.toString()), "serve")) {
            assertEquals(2, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains("tools.workspace " + home + " (from environment variable CADUCEUS__TOOLS__WORKSPACE)"
                    + " contains the state directory " + state), err);
            assertFalse(err.contains("\tat "), "no stack trace: " + err);
        }
    }

    @Test
    void theDefaultWorkspaceIsASiblingOfTheStateDirectoryCreatedOwnerOnly() throws Exception {
        var state = home.resolve("state");
        try (var server = Caduceus.serve(state, Caduceus.KEY_ENV)) {
            var workspace = home.resolve("state-workspace");
            assertTrue(Files.isDirectory(workspace));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(workspace)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)),
                    "the launcher creates the state directory owner-only too");
        }
    }

    private static Map<String, String> bearer(String key) {
        return Map.of("Authorization", "Bearer " + key);
    }

    @Test
    void helpExplainsTheCommands() throws Exception {
        try (var process = Caduceus.launch(home, Map.of(), "--help")) {
            assertEquals(0, process.awaitExit());
            var out = process.stdout();
            for (var word : new String[] {"serve", "plugins", "key", "Usage"})
                assertTrue(out.contains(word), out);
        }
        try (var process = Caduceus.launch(home, Map.of(), "serve", "--help")) {
            assertEquals(0, process.awaitExit());
            assertTrue(process.stdout().contains("--port"), process.stdout());
            assertTrue(process.stdout().contains("--lenient"), process.stdout());
        }
        try (var process = Caduceus.launch(home, Map.of(), "--no-such-flag")) {
            assertEquals(2, process.awaitExit());
        }
    }

    @Test
    void everyShippedPluginJarIsWellFormed() throws Exception {
        try (var jars = Files.list(Caduceus.DIST.resolve("plugins"))) {
            var list = jars.filter(p -> p.toString().endsWith(".jar")).toList();
            assertFalse(list.isEmpty());
            for (var jar : list) PluginJarAssertions.assertValidPluginJar(jar);
        }
        try (var libs = Files.list(Caduceus.DIST.resolve("lib"))) {
            assertTrue(libs.noneMatch(p -> p.getFileName().toString().contains("endpoint-")),
                    "no plugin lands in lib/");
        }
        assertTrue(Files.isExecutable(Caduceus.DIST.resolve("bin/caduceus")));
        assertTrue(Files.exists(Caduceus.DIST.resolve("conf/config.yaml")));
        assertTrue(Files.exists(Caduceus.DIST.getParent().resolve("caduceus.tar.gz")));
    }

    @Test
    void theShippedExampleConfigLoadsAsIs() throws Exception {
        try (var server = Caduceus.serve(home, Map.of(), "--config",
                Caduceus.DIST.resolve("conf/config.yaml").toString())) {
            assertEquals(200, server.get("/health", Map.of()).statusCode());
        }
    }
}
