package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.tool.Cancellation;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The MCP tool {@code agent}: {@code {"prompt": "…"}} runs one whole agent turn (an ephemeral run, as a
 * non-streaming chat turn) owned by the caller's key, with the served toolsets, and returns its final
 * answer as text; a turn that fails or is cancelled is an error result with the reason. The MCP client
 * leaving, or cancelling the request, stops the turn. Thread-safe; {@link #call} blocks.
 */
final class AgentTool {
    static final String NAME = "agent";
    static final String CANCEL_REASON = "the MCP client cancelled the request";

    private final Supplier<Runs> runs;
    private final List<String> toolsets;
    private final McpSchema.Tool tool;

    /** @param runs the host's run service (after boot, so looked up on each call) */
    @SuppressWarnings("unchecked")
    AgentTool(Supplier<Runs> runs, List<String> toolsets, ObjectMapper mapper) {
        this.runs = runs;
        this.toolsets = List.copyOf(toolsets);
        var schema = mapper.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("prompt").put("type", "string")
                .put("description", "What to ask the agent; it may call its own tools before answering");
        schema.putArray("required").add("prompt");
        this.tool = new McpSchema.Tool(NAME, null, "Runs one turn of this server's agent, which may use all of "
                + "its tools, and returns its final answer.", mapper.convertValue(schema, Map.class), null,
                McpSchema.ToolAnnotations.builder().readOnlyHint(false).openWorldHint(true).build(), null, null);
    }

    McpSchema.Tool tool() {
        return tool;
    }

    McpSchema.CallToolResult call(Caller caller, Map<?, ?> arguments, Cancellation cancellation)
            throws InterruptedException {
        if (!(arguments.get("prompt") instanceof String prompt) || prompt.isBlank())
            return ToolShapes.text("'prompt' must be a non-empty string", true);
        var request = new RunRequest(null, List.of(Message.user(prompt)), null, toolsets, null, null,
                ModelOptions.DEFAULTS, 0, Map.of("source", "mcp"), false, caller.name());
        var handle = new AtomicReference<RunHandle>();
        var hook = cancellation.onCancel(() -> {
            var h = handle.get();
            if (h != null) h.cancel(CANCEL_REASON);
        });
        try {
            var result = runs.get().call(request, h -> {
                handle.set(h);
                if (cancellation.isCancelled()) h.cancel(CANCEL_REASON);
            });
            if (result.status() == RunStatus.COMPLETED && result.output() != null)
                return ToolShapes.text(result.output(), false);
            var why = result.error() != null ? result.error() : "the agent turn ended " + result.status().name().toLowerCase(java.util.Locale.ROOT);
            return ToolShapes.text(why, true);
        } catch (RunRejectedException e) {
            return ToolShapes.text(e.getMessage(), true);
        } finally {
            close(hook);
        }
    }

    private static void close(AutoCloseable hook) {
        try {
            hook.close();
        } catch (Exception ignored) {
            // unregistering a callback cannot fail in a way that matters here
        }
    }
}
