package dev.caduceus.plugin.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code mcp_servers} section as Hermes writes it: defaults, filters, {@code ${VAR}}, and each mistake named. */
class ServersConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> ENV = Map.of("GITHUB_TOKEN", "ghp_secret_value", "BIN", "/opt/bin");

    private final List<String> warnings = new ArrayList<>();

    private List<ServerConfig> parse(String json) throws Exception {
        return ServersConfig.parse(JSON.readTree(json), new Substitution(n -> Optional.ofNullable(ENV.get(n))), warnings::add);
    }

    @Test
    void hermesDefaultsAndSubstitution() throws Exception {
        var servers = parse("""
                {"github": {"command": "${BIN}/npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
                 "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"},
                            "timeout": 12.5, "connect_timeout": "5", "supports_parallel_tool_calls": true,
                            "tools": {"include": ["a"], "exclude": ["a", "b"], "prompts": false}}}
                """);
        var github = servers.get(0);
        assertEquals("/opt/bin/npx", github.command());
        assertEquals(List.of("-y", "@modelcontextprotocol/server-github"), github.args());
        assertEquals("ghp_secret_value", github.env().get("GITHUB_PERSONAL_ACCESS_TOKEN"));
        assertEquals(Duration.ofSeconds(300), github.timeout());
        assertEquals(Duration.ofSeconds(60), github.connectTimeout());
        assertTrue(github.enabled());
        assertFalse(github.parallelSafe());
        assertTrue(github.filter().resources() && github.filter().prompts());
        var remote = servers.get(1);
        assertEquals("Bearer ghp_secret_value", remote.headers().get("Authorization"));
        assertEquals(Duration.ofMillis(12_500), remote.timeout());
        assertEquals(Duration.ofSeconds(5), remote.connectTimeout());
        assertTrue(remote.parallelSafe());
        assertTrue(remote.filter().allows("a"), "include wins over exclude");
        assertFalse(remote.filter().allows("c"));
        assertFalse(remote.filter().prompts());
        assertEquals(List.of(), warnings);
    }

    @Test
    void unknownKeysAreWarnedNamingTheServer() throws Exception {
        parse("""
                {"fs": {"command": "npx", "keepalive_interval": 30, "tools": {"only": ["x"]}}}
                """);
        assertEquals(List.of("Unknown configuration key mcp_servers.fs.keepalive_interval; it is ignored",
                "Unknown configuration key mcp_servers.fs.tools.only; it is ignored"), warnings);
    }

    @Test
    void argsMayBeOneStringSplitAsAShellWould() throws Exception {
        var servers = parse("{\"fs\": {\"command\": \"npx\", \"args\": \"-y '@modelcontextprotocol/server-filesystem' \\\"/data/my files\\\" ${BIN}\"}}");
        assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "/data/my files", "/opt/bin"), servers.get(0).args());
        var unclosed = assertThrows(ConfigException.class, () -> parse("{\"fs\": {\"command\": \"npx\", \"args\": \"'oops\"}}"));
        assertEquals("mcp_servers.fs.args", unclosed.key());
    }

    @Test
    void wrongTypesAreRejectedNamingServerAndKey() {
        var timeout = assertThrows(ConfigException.class, () -> parse("{\"fs\": {\"command\": \"npx\", \"timeout\": \"soon\"}}"));
        assertEquals("mcp_servers.fs.timeout", timeout.key());
        assertTrue(timeout.getMessage().contains("MCP server 'fs'") && timeout.getMessage().contains("number of seconds"),
                timeout.getMessage());
        var args = assertThrows(ConfigException.class, () -> parse("{\"fs\": {\"command\": \"npx\", \"args\": {\"a\": 1}}}"));
        assertEquals("mcp_servers.fs.args", args.key());
        var enabled = assertThrows(ConfigException.class, () -> parse("{\"fs\": {\"command\": \"npx\", \"enabled\": \"maybe\"}}"));
        assertEquals("mcp_servers.fs.enabled", enabled.key());
        var header = assertThrows(ConfigException.class,
                () -> parse("{\"web\": {\"url\": \"https://x.example\", \"headers\": {\"Authorization\": [\"ghp_abc\"]}}}"));
        assertEquals("mcp_servers.web.headers.Authorization", header.key());
        assertFalse(header.getMessage().contains("ghp_abc"), "a header's value is never quoted");
        var url = assertThrows(ConfigException.class, () -> parse("{\"web\": {\"url\": \"ftp://x\"}}"));
        assertEquals("mcp_servers.web.url", url.key());
        var entry = assertThrows(ConfigException.class, () -> parse("{\"web\": \"https://x.example\"}"));
        assertEquals("mcp_servers.web", entry.key());
    }

    @Test
    void aServerIsEitherACommandOrAUrl() {
        var both = assertThrows(ConfigException.class,
                () -> parse("{\"mixed\": {\"command\": \"npx\", \"url\": \"https://x.example/mcp\"}}"));
        assertEquals("mcp_servers.mixed.url", both.key());
        assertTrue(both.getMessage().contains("MCP server 'mixed' sets both mcp_servers.mixed.command and mcp_servers.mixed.url"),
                both.getMessage());
        var neither = assertThrows(ConfigException.class, () -> parse("{\"empty\": {\"timeout\": 5}}"));
        assertEquals("mcp_servers.empty", neither.key());
    }

    @Test
    void anUnresolvedVariableIsNamedWithItsKey() {
        var e = assertThrows(ConfigException.class,
                () -> parse("{\"gh\": {\"command\": \"npx\", \"env\": {\"TOKEN\": \"${NOT_SET_ANYWHERE}\"}}}"));
        assertEquals("mcp_servers.gh.env.TOKEN", e.key());
        assertTrue(e.getMessage().contains("${NOT_SET_ANYWHERE}"), e.getMessage());
    }

    @Test
    void aDisabledServerIsNotResolved() throws Exception {
        var servers = parse("{\"off\": {\"command\": \"${NOT_SET_ANYWHERE}\", \"enabled\": false}}");
        assertFalse(servers.getFirst().enabled());
    }

    @Test
    void namesAreHermes() {
        assertEquals("mcp_my_server_list_files", ToolNames.tool("my-server", "list.files"));
        assertEquals("mcp-my-server", ToolNames.toolset("my-server"));
        var longName = ToolNames.tool("server", "x".repeat(80));
        assertEquals(64, longName.length());
        assertEquals(longName, ToolNames.tool("server", "x".repeat(80)), "stable");
    }
}
