package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Hermes user's setup, unchanged: the seed's {@code config.yaml} layouts and {@code .env} start the
 * assembled server on their port with their key and model name; and profiles ({@code -p NAME}) run
 * side by side with nothing shared.
 */
class SeedSetupIT {
    static final ObjectMapper JSON = new ObjectMapper();
    /** The launcher harness sets API_SERVER_PORT=0; an empty value is "unset", so the file's port applies. */
    static final Map<String, String> NO_PORT_OVERRIDE = Map.of("API_SERVER_PORT", "");

    @TempDir Path tmp;

    private static int freePort() throws Exception {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String block(String path, String body) {
        var yaml = new StringBuilder();
        var indent = "";
        for (var part : path.split("\\.")) {
            yaml.append(indent).append(part).append(":\n");
            indent += "  ";
        }
        for (var line : body.split("\n")) yaml.append(indent).append(line).append('\n');
        return yaml.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gateway.api_server", "gateway.platforms.api_server", "platforms.api_server"})
    void theSeedsConfigYamlStartsTheServerWhereItSays(String path) throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        int port = freePort();
        var body = path.startsWith("platforms")
                ? "enabled: true\nextra:\n  port: " + port + "\n  key: the-seeds-own-key-0123\n  model_name: seed-agent"
                : "enabled: true\nport: " + port + "\nkey: the-seeds-own-key-0123\nmodel_name: seed-agent";
        Files.writeString(home.resolve("config.yaml"), block(path, body));
        try (var server = Caduceus.serve(home, NO_PORT_OVERRIDE)) {
            var uri = server.awaitListening();
            assertEquals(port, uri.getPort(), server.stdout());
            var models = server.get("/v1/models", Map.of("Authorization", "Bearer the-seeds-own-key-0123"));
            assertEquals(200, models.statusCode(), models.body());
            assertEquals("seed-agent", JSON.readTree(models.body()).at("/data/0/id").asText());
            assertEquals(401, server.get("/v1/models", Map.of("Authorization", "Bearer another-key-0123456789")).statusCode());
            assertFalse(server.stderr().contains("Unknown configuration key"), server.stderr());
        }
    }

    @Test
    void theEnvironmentWinsAndDotEnvFillsIn() throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve("config.yaml"), block("gateway.api_server", "model_name: from-file"));
        var dotenv = Files.writeString(home.resolve(".env"), "# as in ~/.hermes/.env\nAPI_SERVER_ENABLED=true\n"
                + "export API_SERVER_KEY=\"the-dotenv-key-012345\"\nAPI_SERVER_MODEL_NAME=from-dotenv\n");
        Files.setPosixFilePermissions(dotenv, PosixFilePermissions.fromString("rw-------"));
        var env = new HashMap<String, String>();
        env.put("API_SERVER_MODEL_NAME", "from-environment");
        try (var server = Caduceus.serve(home, env)) {
            var models = server.get("/v1/models", Map.of("Authorization", "Bearer the-dotenv-key-012345"));
            assertEquals(200, models.statusCode(), models.body());
            assertEquals("from-environment", JSON.readTree(models.body()).at("/data/0/id").asText());
        }
    }

    @Test
    void aSettingInTwoPlacesStopsTheStartNamingBoth() throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve("config.yaml"), "server:\n  port: 9001\n" + block("gateway.api_server", "port: 9002"));
        try (var process = Caduceus.launch(home, Map.of(), "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains("server.port and gateway.api_server.port"), process.stderr());
        }
    }

    @Test
    void aMalformedDotEnvStopsTheStartNamingTheLine() throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve(".env"), "API_SERVER_KEY=fine-key-0123456789\nthis line is not a variable\n");
        try (var process = Caduceus.launch(home, Map.of(), "serve")) {
            assertEquals(2, process.awaitExit());
            assertTrue(process.stderr().contains(home.resolve(".env") + " line 2 is malformed"), process.stderr());
        }
    }

    @Test
    void apiServerEnabledFalseDoesNotServeAndSaysWhy() throws Exception {
        var home = Files.createDirectories(tmp.resolve("home"));
        try (var process = Caduceus.launch(home, Map.of("API_SERVER_ENABLED", "false"), "serve")) {
            assertEquals(0, process.awaitExit());
            assertTrue(process.stderr().contains("not serving: the API server is disabled")
                    && process.stderr().contains("API_SERVER_ENABLED"), process.stderr());
        }
    }

    @Test
    void twoProfilesRunSideBySideWithNothingShared() throws Exception {
        var base = Files.createDirectories(tmp.resolve("base"));
        for (var name : new String[] {"alice", "bob"}) {
            try (var create = Caduceus.launch(base, Map.of(), "profile", "create", name)) {
                assertEquals(0, create.awaitExit(), create.stderr());
                assertTrue(create.stdout().contains("caduceus -p " + name + " serve"), create.stdout());
            }
            var dotenv = Files.writeString(base.resolve("profiles/" + name + "/.env"), "API_SERVER_KEY=" + name + "-key-0123456789\n");
            Files.setPosixFilePermissions(dotenv, PosixFilePermissions.fromString("rw-------"));
        }
        try (var again = Caduceus.launch(base, Map.of(), "profile", "create", "alice")) {
            assertEquals(2, again.awaitExit());
            assertTrue(again.stderr().contains("already exists"), again.stderr());
        }
        try (var unknown = Caduceus.launch(base, Map.of(), "-p", "carol", "serve")) {
            assertEquals(2, unknown.awaitExit());
            assertTrue(unknown.stderr().contains("caduceus profile create carol"), unknown.stderr());
        }
        try (var alice = Caduceus.launch(base, Map.of(), "-p", "alice", "serve");
             var bob = Caduceus.launch(base, Map.of("CADUCEUS_PROFILE", "bob"), "serve")) {
            var aliceUri = alice.awaitListening();
            var bobUri = bob.awaitListening();
            assertTrue(aliceUri.getPort() != bobUri.getPort());
            for (var pair : new String[][] {{"alice", "bob"}, {"bob", "alice"}}) {
                var server = pair[0].equals("alice") ? alice : bob;
                var own = server.get("/v1/models", Map.of("Authorization", "Bearer " + pair[0] + "-key-0123456789"));
                assertEquals(200, own.statusCode(), own.body());
                assertEquals(pair[0], JSON.readTree(own.body()).at("/data/0/id").asText(), "the profile is the model id");
                assertEquals(401, server.get("/v1/models",
                        Map.of("Authorization", "Bearer " + pair[1] + "-key-0123456789")).statusCode());
                assertTrue(Files.exists(base.resolve("profiles/" + pair[0] + "/caduceus.db")), "its own database");
            }
            assertFalse(Files.exists(base.resolve("caduceus.db")), "the default profile's state is untouched");
            try (var list = Caduceus.launch(base, Map.of(), "profile", "list")) {
                assertEquals(0, list.awaitExit(), list.stderr());
                assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith("alice") && l.contains("serving")), list.stdout());
            }
            try (var refused = Caduceus.launch(base, Map.of(), "profile", "delete", "alice", "--yes")) {
                assertEquals(2, refused.awaitExit());
                assertTrue(refused.stderr().contains("is running"), refused.stderr());
            }
        }
        try (var noYes = Caduceus.launch(base, Map.of(), "profile", "delete", "alice")) {
            assertEquals(2, noYes.awaitExit());
            assertTrue(noYes.stderr().contains("--yes"), noYes.stderr());
        }
        try (var delete = Caduceus.launch(base, Map.of(), "profile", "delete", "alice", "--yes")) {
            assertEquals(0, delete.awaitExit(), delete.stderr());
        }
        assertFalse(Files.exists(base.resolve("profiles/alice")));
        assertTrue(Files.exists(base.resolve("profiles/bob")));
        try (var bad = Caduceus.launch(base, Map.of(), "profile", "create", "Not_Valid!")) {
            assertEquals(2, bad.awaitExit());
            assertTrue(bad.stderr().contains("is not a profile name"), bad.stderr());
        }
    }
}
