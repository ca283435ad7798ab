package dev.caduceus.plugin.mcpserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * The mcp family on the real host ({@link TestHost}: this plugin's jar, provider-openai at a
 * {@link ScriptedUpstream} for the agent tool's turns, the terminal and file tools, the capabilities
 * document) and JSON-RPC helpers over plain HTTP. An unscripted model call answers {@code ok}.
 */
final class McpHost implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String[] MCP_HEADERS = {"Accept", "application/json, text/event-stream", "Content-Type", "application/json"};

    final ScriptedUpstream upstream = ScriptedUpstream.start();
    final TestHost host;
    final HostClient http;
    private final AtomicInteger ids = new AtomicInteger();

    private McpHost(UnaryOperator<TestHost.Builder> more) {
        upstream.setDefault(Turn.text("ok"));
        host = more.apply(TestHost.builder()
                .plugins("endpoint-mcp", "provider-openai", "tool-terminal", "tool-file", "endpoint-capabilities")
                .model(upstream)
                .env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1"))
                .start();
        http = host.http();
    }

    static McpHost start() {
        return new McpHost(b -> b);
    }

    static McpHost start(UnaryOperator<TestHost.Builder> more) {
        return new McpHost(more);
    }

    /** POSTs {@code body} to /mcp as an MCP client does. */
    HostClient.Response post(HostClient client, String body) {
        return client.post("/mcp", body, MCP_HEADERS);
    }

    /** A request {@code method} with {@code params} (JSON, or null); answers its response (HTTP 200 expected). */
    JsonNode request(HostClient client, String method, String params) {
        var id = ids.incrementAndGet();
        var response = post(client, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
                + (params == null ? "" : ",\"params\":" + params) + "}");
        assertEquals(200, response.status(), response.body());
        assertEquals(id, response.json().path("id").asInt(), response.body());
        return response.json();
    }

    JsonNode request(String method, String params) {
        return request(http, method, params);
    }

    /** {@code tools/call} of {@code tool} with {@code arguments} (JSON): the response's result. */
    JsonNode call(HostClient client, String tool, String arguments) {
        var response = request(client, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
        return response.path("result");
    }

    JsonNode call(String tool, String arguments) {
        return call(http, tool, arguments);
    }

    /** The text of a tools/call result's content, joined. */
    static String text(JsonNode result) {
        var sb = new StringBuilder();
        result.path("content").forEach(c -> sb.append(c.path("text").asText()));
        return sb.toString();
    }

    /** The names of a tools/list response's tools. */
    static java.util.List<String> names(JsonNode listResponse) {
        var names = new java.util.ArrayList<String>();
        listResponse.path("result").path("tools").forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    static ObjectNode object(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    @Override
    public void close() {
        try {
            host.close();
        } finally {
            upstream.close();
        }
    }
}
