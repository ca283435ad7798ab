package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Small {@link Tool}s for tests, all in toolset {@code test}: {@link #add} (a+b, parallel-safe),
 * {@link #slow} (sleeps {@code ms}, stops early on cancellation), {@link #fail} (throws) and
 * {@link #echo} (returns its arguments). Stateless and thread-safe.
 */
public final class TestTools {
    private TestTools() {}

    /** {@code add(a, b)} → {@code {"sum": a+b}}; parallel-safe. */
    public static Tool add() {
        return tool(spec("add", "Adds two integers.", schema("a", "integer", "b", "integer"), true),
                (call, ctx) -> new ToolResult.Ok("{\"sum\": "
                        + (call.arguments().path("a").asLong() + call.arguments().path("b").asLong()) + "}"));
    }

    /** {@code slow(ms)} sleeps, returning {@code {"slept_ms": ms}}, or {@code {"error": "Interrupted"}} when cancelled. */
    public static Tool slow() {
        return tool(spec("slow", "Sleeps for ms milliseconds.", schema("ms", "integer"), false), (call, ctx) -> {
            long ms = call.arguments().path("ms").asLong(1000);
            var cancelled = new CountDownLatch(1);
            try (var hook = ctx.cancellation().onCancel(cancelled::countDown)) {
                if (cancelled.await(ms, TimeUnit.MILLISECONDS)) return new ToolResult.Error("Interrupted", false);
            }
            return new ToolResult.Ok("{\"slept_ms\": " + ms + "}");
        });
    }

    /** {@code fail(message)} throws {@link IllegalStateException}. */
    public static Tool fail() {
        return tool(spec("fail", "Always fails.", schema("message", "string"), false), (call, ctx) -> {
            throw new IllegalStateException(call.arguments().path("message").asText("failed on purpose"));
        });
    }

    /** {@code echo(...)} returns its arguments as JSON. */
    public static Tool echo() {
        return tool(spec("echo", "Returns its arguments.", schema(), true),
                (call, ctx) -> new ToolResult.Ok(call.arguments().toString()));
    }

    /** All four. */
    public static List<Tool> all() {
        return List.of(add(), echo(), fail(), slow());
    }

    private interface Body {
        ToolResult call(ToolCall call, ToolContext ctx) throws Exception;
    }

    private static Tool tool(ToolSpec spec, Body body) {
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext ctx) throws Exception {
                return body.call(call, ctx);
            }
        };
    }

    private static ToolSpec spec(String name, String description, ObjectNode parameters, boolean parallelSafe) {
        return new ToolSpec(name, description, parameters, "test", List.of(), ToolRisk.READ_ONLY, 100_000,
                parallelSafe, false, null);
    }

    /** {@code {"type":"object","properties":{name:{"type":type}…}}} from name/type pairs. */
    private static ObjectNode schema(String... nameTypes) {
        var schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        var props = schema.putObject("properties");
        for (int i = 0; i + 1 < nameTypes.length; i += 2) props.putObject(nameTypes[i]).put("type", nameTypes[i + 1]);
        return schema;
    }
}
