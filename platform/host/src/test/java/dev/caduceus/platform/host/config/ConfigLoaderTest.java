package dev.caduceus.platform.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private Path home() {
        return dir.resolve("home");
    }

    private Path write(String yaml) throws IOException {
        Files.createDirectories(home());
        return Files.writeString(home().resolve("config.yaml"), yaml);
    }

    private LoadedConfig load(Map<String, String> env, List<ConfigLoader.Flag> flags) {
        var all = new HashMap<>(env);
        all.put("CADUCEUS_HOME", home().toString());
        return new ConfigLoader(all, dir.resolve("user")).load(Optional.empty(), flags);
    }

    private ConfigException fails(String yaml, Map<String, String> env) throws IOException {
        write(yaml);
        return assertThrows(ConfigException.class, () -> load(env, List.of()));
    }

    @Test
    void defaultsWithoutAnyFile() {
        var c = load(Map.of(), List.of()).config();
        assertEquals("127.0.0.1", c.server().host());
        assertEquals(8642, c.server().port());
        assertEquals(10_000_000L, c.server().maxBodyBytes());
        assertEquals(10, c.server().maxConcurrentRuns());
        assertEquals(30, c.server().idleTimeoutSeconds());
        assertEquals(20, c.server().headerTimeoutSeconds());
        assertEquals(64, c.server().maxIdleConnectionsPerClient());
        assertEquals("hermes-agent", c.server().modelName());
        assertEquals(List.of("hermes-api-server"), c.agent().toolsets());
        assertEquals(90, c.agent().maxIterations());
        assertEquals(300, c.approvals().timeoutSeconds());
        assertEquals(home().resolveSibling(home().getFileName() + "-workspace"), c.workspace(),
                "a sibling of the state directory, not inside it");
        assertEquals(home().resolve("plugins"), c.plugins().dir());
        assertEquals(Optional.empty(), c.configFile());
        assertFalse(c.model().configured());
        assertEquals("default", c.source("server.port"));
        assertEquals(home(), c.home());
    }

    @Test
    void precedenceIsFlagsThenEnvThenFileThenDefaults() throws IOException {
        Path file = write("server:\n  port: 9000\n  host: 0.0.0.0\n  model_name: from-file\n");
        var flags = List.of(new ConfigLoader.Flag("--port", "server.port", "9002"));
        var env = Map.of("API_SERVER_PORT", "9001", "API_SERVER_HOST", "10.0.0.1");
        var c = load(env, flags).config();
        assertEquals(9002, c.server().port());
        assertEquals("flag --port", c.source("server.port"));
        assertEquals("10.0.0.1", c.server().host());
        assertEquals("environment variable API_SERVER_HOST", c.source("server.host"));
        assertEquals("from-file", c.server().modelName());
        assertEquals(file.toString(), c.source("server.model_name"));
        assertEquals(30, c.server().sseKeepaliveSeconds());
        assertEquals(Optional.of(file), c.configFile());
        assertEquals(9001, load(env, List.of()).config().server().port());
    }

    @Test
    void configFlagPointsAtAnotherFileAndMissingOneIsAnError() throws IOException {
        write("server: {port: 1111}\n");
        Path other = Files.writeString(dir.resolve("other.yaml"), "server: {port: 2222}\n");
        var loader = new ConfigLoader(Map.of("CADUCEUS_HOME", home().toString()), dir);
        assertEquals(2222, loader.load(Optional.of(other), List.of()).config().server().port());
        Path missing = dir.resolve("nope.yaml");
        var e = assertThrows(ConfigException.class, () -> loader.load(Optional.of(missing), List.of()));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }

    @Test
    void malformedYamlNamesFileLineAndColumn() throws IOException {
        var e = fails("server:\n  port: 8642\n   host: [oops\n", Map.of());
        assertTrue(e.getMessage().startsWith("Cannot parse " + home().resolve("config.yaml") + " at line 3, column "),
                e.getMessage());
        assertTrue(e.getMessage().matches("(?s).* at line 3, column [0-9]+: \\S.*"), e.getMessage());
        var dup = fails("server:\n  port: 1\n  port: 2\n", Map.of());
        assertTrue(dup.getMessage().contains("at line 3"), dup.getMessage());
    }

    @Test
    void malformedValuesNameKeyValueExpectationAndSource() throws IOException {
        Path file = home().resolve("config.yaml");
        assertEquals("Invalid value for server.port in " + file + ": \"abc\" is not an integer between 0 and 65535",
                fails("server:\n  port: abc\n", Map.of()).getMessage());
        var protocol = fails("model:\n  protocol: h3\n", Map.of());
        assertEquals("model.protocol", protocol.key());
        assertTrue(protocol.getMessage().contains("\"h3\" is not one of auto, "), protocol.getMessage());
        assertTrue(fails("server:\n  max_body_bytes: -5\n", Map.of()).getMessage()
                .contains("server.max_body_bytes in " + file + ": \"-5\" is not an integer >= 1"));
        assertTrue(fails("model:\n  health_probe: maybe\n", Map.of()).getMessage().contains("is not true or false"));
        assertTrue(fails("model:\n  base_url: ftp://x\n", Map.of()).getMessage().contains("is not an http or https URL"));
        assertTrue(fails("agent:\n  toolsets: {a: 1}\n", Map.of()).getMessage().contains("agent.toolsets"));
        assertTrue(fails("server:\n  port: 70000\n", Map.of()).getMessage().contains("\"70000\""));
        var env = fails("", Map.of("API_SERVER_PORT", "80x"));
        assertEquals("Invalid value for server.port in environment variable API_SERVER_PORT: \"80x\" is not an integer "
                + "between 0 and 65535", env.getMessage());
        assertTrue(fails("", Map.of("HERMES_MAX_ITERATIONS", "0")).getMessage()
                .contains("agent.max_iterations in environment variable HERMES_MAX_ITERATIONS"));
        assertTrue(fails("server:\n  header_timeout_seconds: 0\n", Map.of()).getMessage()
                .contains("server.header_timeout_seconds in " + file + ": \"0\" is not an integer >= 1"));
        assertTrue(fails("", Map.of("CADUCEUS__SERVER__IDLE_TIMEOUT_SECONDS", "0")).getMessage()
                .contains("server.idle_timeout_seconds"));
        assertTrue(fails("server:\n  max_idle_connections_per_client: -1\n", Map.of()).getMessage()
                .contains("server.max_idle_connections_per_client"));
    }

    @Test
    void secretsAreRedactedInMessagesAndToString() throws IOException {
        var e = fails("server:\n  api_key: [sk-very-secret-value-123]\n", Map.of());
        assertTrue(e.getMessage().contains("server.api_key"), e.getMessage());
        assertTrue(e.getMessage().contains("<redacted>"), e.getMessage());
        assertFalse(e.getMessage().contains("sk-very-secret"), e.getMessage());
        write("model: {api_key: sk-model-secret, name: m}\ngateway: {proxy_key: gw-secret}\n");
        var c = load(Map.of("API_SERVER_KEY", "env-secret-key-123456"), List.of()).config();
        assertEquals("env-secret-key-123456", c.server().apiKey().orElseThrow().reveal());
        assertEquals("environment variable API_SERVER_KEY", c.source("server.api_key"));
        String shown = c.toString();
        for (String secret : List.of("env-secret-key", "sk-model-secret", "gw-secret")) {
            assertFalse(shown.contains(secret), shown);
        }
    }

    @Test
    void unknownKeysAreWarningsNotErrors() throws IOException {
        Path file = write("serverr:\n  port: 1\nserver:\n  colour: blue\ntools:\n  terminal: {timeout: 5}\n"
                + "plugins:\n  tool-web:\n    engine: x\n");
        var loaded = load(Map.of("CADUCEUS__MODEL__TEMPERATURE", "1"), List.of());
        assertEquals(List.of("Unknown configuration key serverr.port in " + file + "; it is ignored",
                "Unknown configuration key server.colour in " + file + "; it is ignored",
                // tools.* belongs to the tool plugins: known once one declares it, as plugins.<id>.* always is
                "Unknown configuration key tools.terminal.timeout in " + file + "; it is ignored",
                "Unknown configuration key model.temperature in environment variable CADUCEUS__MODEL__TEMPERATURE; "
                        + "it is ignored"), new DeclaredSettings(loaded.config().tree()).unknownKeys());
        assertEquals(List.of(), loaded.warnings()); // reported once the plugins have declared theirs
    }

    @Test
    void aPluginsDeclaredSettingIsKnownAndItsValueChecked() throws IOException {
        Path file = write("chat:\n  tool_progress_events: sometimes\n  housekeeping: plain\n");
        var tree = load(Map.of(), List.of()).config().tree();
        var declared = new DeclaredSettings(tree);
        declared.declare("endpoint-chat", List.of(
                dev.caduceus.spi.config.PluginConfig.Setting.choice("chat.housekeeping", "plain", List.of("plain", "agent"), "d")));
        assertEquals(List.of("Unknown configuration key chat.tool_progress_events in " + file + "; it is ignored"),
                declared.unknownKeys());
        var e = assertThrows(ConfigException.class, () -> declared.declare("endpoint-chat", List.of(
                dev.caduceus.spi.config.PluginConfig.Setting.choice("chat.tool_progress_events", "opt_in",
                        List.of("opt_in", "always", "off"), "d"))));
        assertTrue(e.getMessage().contains("chat.tool_progress_events") && e.getMessage().contains(file.toString()),
                e.getMessage());
    }

    @Test
    void aSettingsOwnEnvironmentVariableOverridesTheFileButNotAFlag() throws IOException {
        write("tools:\n  web:\n    search:\n      tavily:\n        url: https://file.example\n");
        var env = Map.of("TAVILY_API_URL", "https://env.example", "SEARXNG_URL", "https://searx.example");
        var url = dev.caduceus.spi.config.PluginConfig.Setting.string("tools.web.search.tavily.url", null, "d")
                .withEnv("TAVILY_API_URL");
        var searx = dev.caduceus.spi.config.PluginConfig.Setting.string("tools.web.search.searxng.url", null, "d")
                .withEnv("SEARXNG_URL");
        var declared = new DeclaredSettings(load(Map.of(), List.of()).config().tree(), env);
        declared.declare("tool-web", List.of(url, searx));
        assertEquals("https://env.example", declared.tree().node("tools.web.search.tavily.url").orElseThrow().asText());
        assertEquals("environment variable TAVILY_API_URL", declared.tree().source("tools.web.search.tavily.url"));
        assertEquals("https://searx.example", declared.tree().node("tools.web.search.searxng.url").orElseThrow().asText());
        assertTrue(EnvNames.keyFor("TAVILY_API_URL").isEmpty(), "the host does not know the plugin's variable");

        var flagged = load(Map.of(), List.of(new ConfigLoader.Flag("--set", "tools.web.search.tavily.url", "https://flag.example")));
        var withFlag = new DeclaredSettings(flagged.config().tree(), env);
        withFlag.declare("tool-web", List.of(url));
        assertEquals("https://flag.example", withFlag.tree().node("tools.web.search.tavily.url").orElseThrow().asText());
    }

    @Test
    void aPluginCannotRedeclareAHostKeyOrAnotherPluginsDifferently() {
        var declared = new DeclaredSettings(load(Map.of(), List.of()).config().tree());
        var port = dev.caduceus.spi.config.PluginConfig.Setting.integer("server.port", 1, 0, "d");
        assertThrows(IllegalArgumentException.class, () -> declared.declare("x", List.of(port)));
        declared.declare("a", List.of(dev.caduceus.spi.config.PluginConfig.Setting.integer("shared.n", 5, 0, "one")));
        declared.declare("b", List.of(dev.caduceus.spi.config.PluginConfig.Setting.integer("shared.n", 5, 0, "other words")));
        var e = assertThrows(IllegalArgumentException.class, () -> declared.declare("c",
                List.of(dev.caduceus.spi.config.PluginConfig.Setting.integer("shared.n", 6, 0, "one"))));
        assertEquals("plugins 'a' and 'c' declare the setting shared.n differently", e.getMessage());
    }

    @Test
    void modelIsConfiguredWithNameAndKeyDefaultingBaseUrl() {
        var c = load(Map.of("OPENAI_API_KEY", "sk-x", "CADUCEUS_MODEL", "gpt"), List.of()).config();
        assertTrue(c.model().configured());
        assertEquals(Optional.of(PlatformConfig.OPENAI_BASE_URL), c.model().baseUrl());
        var local = load(Map.of("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1", "CADUCEUS__MODEL__NAME", "q"), List.of());
        assertTrue(local.config().model().configured());
        assertEquals(Optional.empty(), local.config().model().apiKey());
        assertFalse(load(Map.of("OPENAI_API_KEY", "sk-x"), List.of()).config().model().configured());
    }

    @Test
    void housekeepingSettingsAreReadFromTheTree() throws IOException {
        var c = load(Map.of("CADUCEUS__MODEL__HOUSEKEEPING_MODEL", "small-model"), List.of()).config();
        assertEquals("small-model", c.tree().node("model.housekeeping_model").orElseThrow().asText());
        assertEquals("agent", load(Map.of("CADUCEUS__CHAT__HOUSEKEEPING", "agent"), List.of()).config().tree()
                .node("chat.housekeeping").orElseThrow().asText());
        // its value is the chat plugin's to declare and the boot's to check (DeclaredSettings), not the loader's
        write("chat:\n  housekeeping: sometimes\n");
        var tree = load(Map.of(), List.of()).config().tree();
        var e = assertThrows(ConfigException.class, () -> new DeclaredSettings(tree).declare("endpoint-chat", List.of(
                dev.caduceus.spi.config.PluginConfig.Setting.choice("chat.housekeeping", "plain", List.of("plain", "agent"), "d"))));
        assertTrue(e.getMessage().contains("chat.housekeeping"), e.getMessage());
    }

    @Test
    void listsAcceptCommaSeparatedStringsAndPathsExpandTilde() throws IOException {
        write("tools:\n  workspace: ~/work\nplugins:\n  dir: \"~\"\n  disabled: [endpoint-jobs]\n");
        var c = load(Map.of("API_SERVER_CORS_ORIGINS", "http://a.example, http://b.example"), List.of()).config();
        assertEquals(List.of("http://a.example", "http://b.example"), c.server().corsOrigins());
        assertEquals(dir.resolve("user/work"), c.workspace());
        assertEquals(dir.resolve("user"), c.plugins().dir());
        assertEquals(List.of("endpoint-jobs"), c.plugins().disabled());
        var tildeHome = new ConfigLoader(Map.of("CADUCEUS_HOME", "~/state"), dir.resolve("user"));
        assertEquals(dir.resolve("user/state"), tildeHome.home());
        assertEquals(dir.resolve("user/.caduceus"), new ConfigLoader(Map.of(), dir.resolve("user")).home());
    }

    @Test
    void globalConfigCarriesTheDocumentedGlobals() {
        var g = load(Map.of("API_SERVER_MODEL_NAME", "adv"), List.of()).config().global("1.2.3");
        assertEquals("adv", g.modelName());
        assertEquals("1.2.3", g.version());
        assertEquals(home(), g.stateDir());
        assertEquals(90, g.maxIterations());
        assertEquals(30, g.sseKeepaliveSeconds());
    }

    @Test
    void stillParsesDetectsABrokenFile() throws IOException {
        Path file = write("server: {port: 1}\n");
        assertTrue(ConfigLoader.stillParses(file));
        Files.writeString(file, "server: {port: [\n");
        assertFalse(ConfigLoader.stillParses(file));
        Files.writeString(file, "server: {port: abc}\n");
        assertFalse(ConfigLoader.stillParses(file));
        assertFalse(ConfigLoader.stillParses(dir.resolve("gone.yaml")));
    }

    @Test
    void staticLoadTakesDottedFlagOverrides() {
        var c = ConfigLoader.load(Map.of("CADUCEUS_HOME", home().toString()), Optional.empty(),
                Map.of("server.port", "0")).config();
        assertEquals(0, c.server().port());
        assertEquals("flag --set server.port", c.source("server.port"));
    }

    @Test
    void aReferenceToAVariableInTheFileIsReplacedAndAnUnsetOneNamesKeyFileAndVariable() throws IOException {
        Files.createDirectories(home());
        Files.writeString(home().resolve(".env"), "HOOK_SECRET_FILE=from-dotenv\n");
        write("""
                server: {model_name: "agent-${MODEL_SUFFIX}", api_key: "${HOOK_SECRET_FILE}"}
                agent: {toolsets: ["$${literal}"]}
                """);
        var c = load(Map.of("MODEL_SUFFIX", "blue"), List.of()).config();
        assertEquals("agent-blue", c.server().modelName(), "from the environment");
        assertEquals("from-dotenv", c.server().apiKey().orElseThrow().reveal(), "from .env");
        assertEquals(List.of("${literal}"), c.agent().toolsets(), "$${ is a literal ${");

        var e = fails("webhooks: {secret: \"${NOT_SET_ANYWHERE}\"}\n", Map.of());
        assertTrue(e.getMessage().contains("webhooks.secret"), e.getMessage());
        assertTrue(e.getMessage().contains("config.yaml"), e.getMessage());
        assertTrue(e.getMessage().contains("NOT_SET_ANYWHERE is not set"), e.getMessage());
    }

    @Test
    void hermesOutboundHooksBecomeEndpointsWithTheirEventsMappedAndWhatHasNoMeaningWarned() throws IOException {
        write("""
                hooks:
                  outbound:
                    - url: https://hooks.example.com/ended
                      events: [on_session_end, pre_tool_call]
                      secret: literal
                      secret_env: HOOK_SECRET
                      timeout: 30
                      matcher: terminal
                    - url: https://hooks.example.com/approvals
                      events: [pre_approval_request, run.requires_action]
                      timeout: 3
                    - url: https://hooks.example.com/tools
                      events: [post_tool_call]
                """);
        var loaded = load(Map.of("HOOK_SECRET", "from-env"), List.of());
        var endpoints = loaded.config().webhooks().endpoints();
        assertEquals(2, endpoints.size(), "the entry with only tool events is skipped: " + endpoints);
        var ended = endpoints.get(0);
        assertTrue(ended.hermes());
        assertEquals(List.of("run.completed", "run.failed", "run.cancelled", "job.run.completed", "job.run.failed",
                "response.completed", "response.failed", "response.cancelled"), ended.events());
        assertEquals("from-env", new String(java.util.Base64.getDecoder().decode(ended.secrets().getFirst().reveal()),
                java.nio.charset.StandardCharsets.UTF_8), "secret_env wins over secret, as in Hermes");
        assertEquals(java.time.Duration.ofSeconds(10), ended.timeout(), "at most 10 s");
        var approvals = endpoints.get(1);
        assertEquals(List.of("approval.requested", "run.requires_action"), approvals.events());
        assertEquals(List.of(), approvals.secrets(), "no secret: unsigned, as in Hermes");
        assertEquals(java.time.Duration.ofSeconds(3), approvals.timeout());
        var warnings = String.join("\n", loaded.warnings());
        assertTrue(warnings.contains("hooks.outbound[0].events") && warnings.contains("pre_tool_call"), warnings);
        assertTrue(warnings.contains("hooks.outbound[0].matcher"), warnings);
        assertTrue(warnings.contains("hooks.outbound[2] in ") && warnings.contains("skipped"), warnings);
        assertFalse(warnings.contains("Unknown configuration key hooks"), warnings);

        var e = fails("hooks: {outbound: [{url: 'https://x.example.com', events: [on_session_ending]}]}\n", Map.of());
        assertTrue(e.getMessage().contains("hooks.outbound[0].events") && e.getMessage().contains("on_session_ending"),
                e.getMessage());
        e = fails("hooks: {outbound: [{url: 'ftp://x.example.com'}]}\n", Map.of());
        assertTrue(e.getMessage().contains("hooks.outbound[0].url"), e.getMessage());
    }
}
