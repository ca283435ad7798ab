package dev.caduceus.platform.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed's (Hermes') config layout, {@code $CADUCEUS_HOME/.env} and profiles' model ids. */
class SeedLayoutTest {
    @TempDir
    Path dir;

    private Path home() {
        return dir.resolve("home");
    }

    private Path write(String yaml) throws IOException {
        Files.createDirectories(home());
        return Files.writeString(home().resolve("config.yaml"), yaml);
    }

    private Path dotenv(String text) throws IOException {
        Files.createDirectories(home());
        var file = Files.writeString(home().resolve(".env"), text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private LoadedConfig load(Map<String, String> env) {
        var all = new HashMap<>(env);
        all.put("CADUCEUS_HOME", home().toString());
        return new ConfigLoader(all, dir.resolve("user")).load(Optional.empty(), List.of());
    }

    /** A seed block at {@code block}, with the port and key in {@code extra:} when {@code extra}. */
    private static String seed(String block, boolean extra) {
        var parts = block.split("\\.");
        var yaml = new StringBuilder();
        var indent = "";
        for (var part : parts) {
            yaml.append(indent).append(part).append(":\n");
            indent += "  ";
        }
        yaml.append(indent).append("enabled: true\n");
        var inner = indent;
        if (extra) {
            yaml.append(indent).append("extra:\n");
            inner = indent + "  ";
        }
        yaml.append(inner).append("port: 9123\n")
                .append(inner).append("key: the-seed-key-long-enough\n")
                .append(inner).append("host: 0.0.0.0\n")
                .append(inner).append("cors_origins: [\"https://chat.example.com\"]\n")
                .append(inner).append("model_name: my-agent\n");
        return yaml.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gateway.api_server", "gateway.platforms.api_server", "platforms.api_server"})
    void eachSeedBlockSetsOurServerSettings(String block) throws IOException {
        for (boolean extra : new boolean[] {false, true}) {
            write(seed(block, extra));
            var loaded = load(Map.of());
            var server = loaded.config().server();
            assertEquals(9123, server.port(), block + " extra=" + extra);
            assertEquals("the-seed-key-long-enough", server.apiKey().orElseThrow().reveal());
            assertEquals("0.0.0.0", server.host());
            assertEquals(List.of("https://chat.example.com"), server.corsOrigins());
            assertEquals("my-agent", server.modelName());
            assertTrue(loaded.config().serverEnabled());
            assertTrue(loaded.warnings().isEmpty(), loaded.warnings().toString());
            assertTrue(loaded.config().tree().source("server.port").contains("as " + block),
                    loaded.config().tree().source("server.port"));
        }
    }

    @Test
    void theEnvironmentWinsOverTheSeedBlock() throws IOException {
        write(seed("gateway.api_server", false));
        var server = load(Map.of("API_SERVER_PORT", "9200", "API_SERVER_MODEL_NAME", "from-env")).config().server();
        assertEquals(9200, server.port());
        assertEquals("from-env", server.modelName());
        assertEquals("the-seed-key-long-enough", server.apiKey().orElseThrow().reveal());
    }

    @Test
    void aSettingWrittenTwiceIsAnErrorNamingBothPlaces() throws IOException {
        write("server:\n  port: 9000\ngateway:\n  api_server:\n    port: 9001\n");
        var e = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertTrue(e.getMessage().contains("server.port and gateway.api_server.port"), e.getMessage());
        write("platforms:\n  api_server:\n    key: a-key-that-is-long-one\n    extra:\n      key: a-key-that-is-long-two\n");
        e = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertTrue(e.getMessage().contains("platforms.api_server.key and platforms.api_server.extra.key"), e.getMessage());
        assertTrue(e.getMessage().contains(home().resolve("config.yaml").toString()), e.getMessage());
        assertFalse(e.getMessage().contains("a-key-that-is-long"), "no secret in the message");
    }

    @Test
    void enabledFalseInTheFileOrTheEnvironmentTurnsServingOff() throws IOException {
        write("gateway:\n  api_server:\n    enabled: false\n");
        var config = load(Map.of()).config();
        assertFalse(config.serverEnabled());
        assertTrue(config.serverEnabledSource().contains("gateway.api_server.enabled"), config.serverEnabledSource());
        assertTrue(load(Map.of("API_SERVER_ENABLED", "true")).config().serverEnabled());
        Files.delete(home().resolve("config.yaml"));
        config = load(Map.of("API_SERVER_ENABLED", "false")).config();
        assertFalse(config.serverEnabled());
        assertEquals("environment variable API_SERVER_ENABLED", config.serverEnabledSource());
        assertThrows(ConfigException.class, () -> load(Map.of("API_SERVER_ENABLED", "perhaps")));
    }

    @Test
    void otherKeysOfASeedBlockAreReportedAsUnknown() throws IOException {
        write("platforms:\n  api_server:\n    port: 9300\n    extra:\n      max_request_bytes: 5\n  telegram:\n    token: x\n");
        var loaded = load(Map.of());
        assertEquals(9300, loaded.config().server().port());
        var unknown = new DeclaredSettings(loaded.config().tree()).unknownKeys();
        assertEquals(2, unknown.size(), unknown.toString());
        assertTrue(unknown.getFirst().contains("platforms.api_server.extra.max_request_bytes"));
    }

    @Test
    void dotEnvFillsInWhatTheEnvironmentLacks() throws IOException {
        var file = dotenv("""
                # the seed's ~/.hermes/.env
                API_SERVER_KEY=from-dotenv-key-0123456789
                export API_SERVER_MODEL_NAME="quoted name"
                API_SERVER_PORT=9400   # a comment
                OPENAI_API_KEY='sk-single-quoted #not-a-comment'

                """);
        var loaded = load(Map.of("API_SERVER_PORT", "9401"));
        var config = loaded.config();
        assertEquals("from-dotenv-key-0123456789", config.server().apiKey().orElseThrow().reveal());
        assertEquals("quoted name", config.server().modelName());
        assertEquals(9401, config.server().port(), "the process environment wins");
        assertEquals("sk-single-quoted #not-a-comment", config.model().apiKey().orElseThrow().reveal());
        assertEquals("variable API_SERVER_KEY in " + file, config.tree().source("server.api_key"));
        assertTrue(config.secretValues().containsAll(List.of("from-dotenv-key-0123456789", "quoted name")),
                "every .env value is a secret for redaction");
        assertTrue(loaded.warnings().isEmpty(), loaded.warnings().toString());
    }

    @Test
    void theDatabaseUrlAndItsPasswordAreSecretsForRedaction() {
        var url = "postgresql://team:pw-4f8e2a1c9b@db.internal:5432/caduceus";
        var config = load(Map.of("CADUCEUS_DATABASE_URL", url, "CADUCEUS_DATABASE_PASSWORD", "split-pw-77c1d0e3")).config();
        assertTrue(config.secretValues().containsAll(List.of(url, "pw-4f8e2a1c9b", "split-pw-77c1d0e3")),
                config.secretValues().size() + " secrets");
    }

    /** Keys inside lists of mappings (model deployments) are secrets too: the redactor masks them in tool output. */
    @Test
    void deploymentKeysInListsAreSecretsForRedaction() throws Exception {
        write("""
                model:
                  deployments:
                    - {base_url: "http://a/v1", api_key: sk-deployment-3f9a1c}
                  routes:
                    strong:
                      deployments:
                        - {base_url: "http://b/v1", api_key: sk-route-deployment-8e21d0, model: m}
                """);
        var secrets = load(Map.of()).config().secretValues();
        assertTrue(secrets.containsAll(List.of("sk-deployment-3f9a1c", "sk-route-deployment-8e21d0")), secrets.toString());
        assertTrue(!secrets.contains("http://a/v1"), "only what looks like a credential");
    }

    @Test
    void dotEnvParsing() {
        var values = DotEnv.parse("A=1\nexport B = two words \nC=\"line\\nbreak \\\"q\\\" \\$HOME\"\nD=''\n"
                + "E=\"multi\nline\"\nF=x#y\n#G=no\n", "f");
        assertEquals(Map.of("A", "1", "B", "two words", "C", "line\nbreak \"q\" $HOME", "D", "", "E", "multi\nline",
                "F", "x#y"), values);
    }

    @Test
    void aMalformedDotEnvLineIsNamedByNumberWithoutItsText() {
        for (var text : List.of("OK=1\nno equals sign here\n", "OK=1\n1BAD=x\n", "OK=1\nQ='unclosed\n",
                "OK=1\nQ=\"x\" trailing\n", "OK=1\nQ=a\"b\n")) {
            var e = assertThrows(ConfigException.class, () -> DotEnv.parse(text, "/h/.env"));
            assertTrue(e.getMessage().startsWith("/h/.env line 2 is malformed"), text + " -> " + e.getMessage());
            assertFalse(e.getMessage().contains("unclosed") || e.getMessage().contains("trailing"), e.getMessage());
        }
        var unclosed = assertThrows(ConfigException.class, () -> DotEnv.parse("A=\"never\nclosed\n", "/h/.env"));
        assertTrue(unclosed.getMessage().contains("line 1"), unclosed.getMessage());
    }

    @Test
    void aDotEnvOthersCanReadIsWarnedAbout() throws IOException {
        var file = dotenv("API_SERVER_KEY=from-dotenv-key-0123456789\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        var warnings = load(Map.of()).warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("chmod 600 " + file), warnings.getFirst());
    }

    @Test
    void aProfileIsTheModelIdUnlessOneIsConfigured() throws IOException {
        assertEquals("alice", load(Map.of(Profiles.VARIABLE, "alice")).config().server().modelName());
        assertEquals("hermes-agent", load(Map.of(Profiles.VARIABLE, "default")).config().server().modelName());
        write("server:\n  model_name: configured\n");
        assertEquals("configured", load(Map.of(Profiles.VARIABLE, "alice")).config().server().modelName());
    }

    @Test
    void aProfilesToolsCannotReachTheBaseOrOtherProfiles() throws IOException {
        var base = Files.createDirectories(dir.resolve("base"));
        Files.writeString(base.resolve("api_key"), "sha256:x:y");
        Files.writeString(base.resolve(".env"), "OPENAI_API_KEY=sk-base\n");
        var bob = Files.createDirectories(base.resolve("profiles/bob"));
        var bobWorkspace = Files.createDirectories(base.resolve("profiles/bob-workspace"));
        var alice = Files.createDirectories(base.resolve("profiles/alice"));
        var aliceWorkspace = Files.createDirectories(base.resolve("profiles/alice-workspace"));
        var env = new HashMap<String, String>();
        env.put("CADUCEUS_HOME", alice.toString());
        env.put(Profiles.VARIABLE, "alice");
        var paths = new ConfigLoader(env, dir.resolve("user")).load(Optional.empty(), List.of()).config().protectedPaths();
        assertTrue(paths.containsAll(List.of(alice, base.resolve("api_key"), base.resolve(".env"), bob, bobWorkspace)),
                paths.toString());
        assertFalse(paths.contains(aliceWorkspace), "its own workspace stays usable");
        assertFalse(paths.contains(base.resolve("profiles")), "the folder holding its workspace is not covered whole");
    }
}
