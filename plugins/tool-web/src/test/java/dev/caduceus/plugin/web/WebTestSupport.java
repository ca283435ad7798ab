package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The web plugin on the real host ({@link TestHost} with this module's jar and the host's own outbound
 * client): {@code tools.*} settings as the environment gives them, and calls through the host's
 * dispatcher (as endpoint-mcp's).
 */
final class WebTestSupport {
    static final ObjectMapper JSON = new ObjectMapper();

    private WebTestSupport() {}

    /** A host with {@code toolsConfig} ({@code web.search.backend -> tavily}) and more environment ({@code NAME, value, …}). */
    static TestHost host(Map<String, String> toolsConfig, String... env) {
        return host(b -> b, toolsConfig, env);
    }

    /** {@link #host(Map, String...)} with more builder settings ({@code b -> b.nameLookup(…)}). */
    static TestHost host(UnaryOperator<TestHost.Builder> more, Map<String, String> toolsConfig, String... env) {
        var builder = more.apply(TestHost.builder().plugins("tool-web"));
        toolsConfig.forEach((key, value) ->
                builder.env("CADUCEUS__TOOLS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
        for (int i = 0; i + 1 < env.length; i += 2) builder.env(env[i], env[i + 1]);
        return builder.start();
    }

    /** The tool {@code name} as the host offers it (only available tools are offered). */
    static Tool tool(TestHost host, String name) {
        return host.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not offered: " + host.tools()));
    }

    /** The line {@code caduceus plugins} prints for tool {@code name}, with its availability. */
    static String listing(TestHost host, String name) {
        return host.pluginListing().lines().filter(l -> l.strip().startsWith("tool   " + name + " ")).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not listed: " + host.pluginListing()));
    }

    static ToolResult call(TestHost host, String tool, String argumentsJson) throws Exception {
        return call(host, tool, argumentsJson, null);
    }

    /** One call that {@code cancellation} can cancel. */
    static ToolResult call(TestHost host, String tool, String argumentsJson, Cancellation cancellation) throws Exception {
        return host.callTool(new ToolCalls.Request(Caller.ADMIN_CALLER, "s1", List.of(), tool,
                (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(argumentsJson), cancellation));
    }

    static JsonNode okJson(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return JSON.readTree(ok.content());
    }

    static String okText(ToolResult result) {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return ok.content();
    }

    /** The message of an error result, as the model reads it in {@code {"error": message}}. */
    static String errorMessage(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Error error)) throw new AssertionError("expected Error, got " + result);
        return JSON.readTree(error.message()).path("error").asText();
    }

    /** A close-all for the hosts a test starts. */
    static void closeAll(List<TestHost> hosts) {
        hosts.forEach(TestHost::close);
        hosts.clear();
    }
}
