package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.FakePlatformContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The file plugin's tools over a temp workspace, called like the host's dispatcher would. */
final class Fixture {
    static final ObjectMapper JSON = new ObjectMapper();

    final Path home;
    final Path workspace;
    final List<Tool> tools;
    String runId = "run-1";

    Fixture(Path temp, Map<String, String> toolsConfig) {
        this(temp, toolsConfig, List.of());
    }

    /** @param configElsewhere more protected paths, as a configuration file given with {@code --config} */
    Fixture(Path temp, Map<String, String> toolsConfig, List<Path> configElsewhere) {
        home = temp.resolve("home");
        workspace = home.resolve("workspace");
        var protectedPaths = new java.util.ArrayList<Path>(List.of(home));
        protectedPaths.addAll(configElsewhere);
        var global = new GlobalConfig("hermes-agent", home, workspace, "1.0.0", 10, 30,
                List.of("hermes-api-server"), 90, false, protectedPaths);
        var ctx = FakePlatformContext.builder("tool-file").global(global).toolsConfig(toolsConfig).build();
        var plugin = new FilePlugin();
        try {
            plugin.start(ctx);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        tools = plugin.tools(ctx);
    }

    Fixture(Path temp) {
        this(temp, Map.of());
    }

    Tool tool(String name) {
        return tools.stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    /** The raw result of one call. */
    ToolResult result(String name, String argsJson) {
        try {
            var args = (ObjectNode) JSON.readTree(argsJson);
            return tool(name).call(new ToolCall("call_1", name, args), context());
        } catch (Exception e) {
            throw new AssertionError("a tool must not throw", e);
        }
    }

    /** The result as the model sees it: Ok content, or {"error": message} for Error. */
    String text(String name, String argsJson) {
        return switch (result(name, argsJson)) {
            case ToolResult.Ok ok -> ok.content();
            case ToolResult.Error e -> HermesJson.write(HermesJson.error(e.message()));
        };
    }

    JsonNode json(String name, String argsJson) {
        try {
            var node = JSON.readTree(text(name, argsJson));
            assertNotNull(node);
            return node;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** JSON-quotes a string for building argument objects. */
    static String q(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    ToolContext context() {
        return new FakeToolContext(runId, "session-1", workspace);
    }

    /** A minimal tool context: no approval channel, never cancelled. */
    record FakeToolContext(String runId, String sessionId, Path workspace) implements ToolContext {
        @Override public ObjectMapper json() { return JSON; }
        @Override public Cancellation cancellation() {
            return new Cancellation() {
                @Override public boolean isCancelled() { return false; }
                @Override public AutoCloseable onCancel(Runnable callback) { return () -> {}; }
            };
        }
        @Override public void progress(String label) {}
        @Override public ApprovalChoice approval(ApprovalRequest request) { return ApprovalChoice.DENY; }
    }
}
