package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Eventually;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM drains in-flight requests, then stops plugins and closes the database. */
class ShutdownIT {
    static final Map<String, String> KEY = Caduceus.KEY_ENV;
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;

    @TempDir Path home;

    @Test
    void sigtermLetsInFlightRequestsFinishThenStopsPlugins() throws Exception {
        ThirdPartyPlugins.lifecycle(home.resolve("plugins"));
        var env = new java.util.HashMap<>(KEY);
        env.put("CADUCEUS__LOGGING__LEVELS", "dev.caduceus.platform.host.plugin=debug"); // each plugin's stop, in order
        var server = Caduceus.serve(home, env);
        CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return server.get("/v1/slow", AUTH);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        var data = home.resolve("plugin-data/lifecycle");
        Eventually.await(Duration.ofSeconds(30), "the slow request is in flight", () -> Files.exists(data.resolve("entered")));
        server.terminate();
        Eventually.await(Duration.ofSeconds(30), "the server began to drain",
                () -> server.stderr().contains("Shutting down: draining"));
        assertFalse(slow.isDone(), "held until released");
        Files.writeString(data.resolve("release"), "go");
        var response = slow.get();
        assertEquals(200, response.statusCode(), "the in-flight request completes during the drain");
        server.awaitExit();
        assertTrue(Files.exists(home.resolve("plugin-data/lifecycle/stopped")), "plugin stop() ran");
        var log = server.stderr();
        assertTrue(log.contains("Stopped plugin 'lifecycle'"), log);
        assertTrue(log.indexOf("Stopped plugin 'lifecycle'") < log.indexOf("Stopped plugin 'endpoint-capabilities'"),
                "plugins stop in reverse start order:\n" + log);
        var enabled = java.util.regex.Pattern.compile(": (\\d+) enabled, 0 off").matcher(log);
        assertTrue(enabled.find(), "the start line counts the plugins: " + log);
        assertTrue(log.contains("Stopped " + enabled.group(1) + " plugins"), "one line at info, every started plugin: " + log);
        assertTrue(log.contains("Caduceus stopped"), log);
    }
}
