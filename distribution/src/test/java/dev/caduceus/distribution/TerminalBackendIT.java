package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the terminal's backend choice reaches the operator: when {@code auto} cannot use bubblewrap
 * it falls back to the host and says so in the banner, in {@code caduceus plugins} and in a
 * degraded {@code tools} check; {@code sandbox} without bubblewrap refuses to start. A missing
 * binary is simulated with {@code tools.terminal.sandbox.bwrap} pointing nowhere, so this runs on
 * machines with bubblewrap too.
 */
class TerminalBackendIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path home;

    Map<String, String> env(String backend) {
        var env = new HashMap<>(Caduceus.KEY_ENV);
        env.put("CADUCEUS__TOOLS__TERMINAL__BACKEND", backend);
        env.put("CADUCEUS__TOOLS__TERMINAL__SANDBOX__BWRAP", home.resolve("no-such-bwrap").toString());
        return env;
    }

    @Test
    void autoWithoutBubblewrapRunsLocalAndWarnsEverywhere() throws Exception {
        try (var server = Caduceus.serve(home, env("auto"))) {
            var banner = server.stdout();
            assertTrue(banner.contains("WARNING:  terminal: terminal commands run UNSANDBOXED on the host (bwrap at "), banner);
            var detailed = JSON.readTree(server.get("/health/detailed", Caduceus.KEY_AUTH).body());
            var tools = detailed.path("readiness").path("checks").path("tools");
            assertEquals("degraded", tools.path("status").asText(), detailed.toString());
            assertTrue(tools.toString().contains("UNSANDBOXED"), tools.toString());
        }
        try (var listing = Caduceus.launch(home, env("auto"), "plugins")) {
            assertEquals(0, listing.awaitExit(), listing.stderr());
            assertTrue(listing.stdout().contains("WARNING: terminal commands run UNSANDBOXED"), listing.stdout());
        }
    }

    @Test
    void localIsAChoiceNotAWarning() throws Exception {
        try (var server = Caduceus.serve(home, env("local"))) {
            assertTrue(server.stdout().contains("terminal: local: commands run on the host"), server.stdout());
            assertFalse(server.stdout().contains("WARNING"), server.stdout());
            var detailed = JSON.readTree(server.get("/health/detailed", Caduceus.KEY_AUTH).body());
            assertEquals("ok", detailed.path("readiness").path("checks").path("tools").path("status").asText(), detailed.toString());
        }
    }

    @Test
    void sandboxWithoutBubblewrapRefusesToStart() throws Exception {
        try (var process = Caduceus.launch(home, env("sandbox"), "serve")) {
            assertTrue(process.awaitExit() != 0);
            var err = process.stderr();
            assertTrue(err.contains("tools.terminal.backend is 'sandbox' but bubblewrap cannot run here"), err);
            assertFalse(err.contains("\tat "), "no stack trace: " + err);
        }
        assertTrue(Files.exists(home));
    }
}
