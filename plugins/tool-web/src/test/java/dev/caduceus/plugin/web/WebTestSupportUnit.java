package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.FakePlatformContext;
import java.util.Map;

/** Builds the plugin's tools by hand on FakePlatformContext, for {@link WebExtractResolverTest} only. */
final class WebTestSupportUnit {
    static final ObjectMapper JSON = new ObjectMapper();

    private WebTestSupportUnit() {}

    /** The tool {@code name} of {@code plugin} configured with {@code toolsConfig}, on the outbound client {@code http}. */
    static Tool tool(WebPlugin plugin, String name, Map<String, String> toolsConfig, OutboundHttp http) {
        var ctx = FakePlatformContext.builder("tool-web").toolsConfig(toolsConfig).outbound(http).build();
        return plugin.tools(ctx).stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    static ToolResult call(Tool tool, TestToolContext ctx, String argumentsJson) throws Exception {
        return tool.call(new ToolCall("call-1", tool.spec().name(), (ObjectNode) JSON.readTree(argumentsJson)), ctx);
    }

    static JsonNode okJson(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return JSON.readTree(ok.content());
    }

    static String okText(ToolResult result) {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return ok.content();
    }
}
