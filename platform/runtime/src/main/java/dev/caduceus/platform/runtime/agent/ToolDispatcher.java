package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.platform.host.plugin.PluginCalls;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolResult;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs one tool call and turns whatever happens into the tool message content, so the
 * model can correct itself instead of the turn failing: unknown tool, invalid arguments (the provider's {@value #INVALID_ARGUMENTS} marker), handler
 * exception and {@link ToolResult.Error} become {@code {"error": "…"}}; results are capped at the
 * tool's {@code maxResultChars} and redacted. The tool runs with its plugin's class loader as TCCL.
 * Thread-safe: calls may come from several threads at once.
 */
public final class ToolDispatcher {
    /** The argument key a provider sets when the model's arguments were not valid JSON. */
    public static final String INVALID_ARGUMENTS = "__invalid_arguments__";
    /** The argument key carrying the parser's message alongside {@link #INVALID_ARGUMENTS}. */
    public static final String INVALID_ARGUMENTS_ERROR = "__error__";
    private static final int MAX_ERROR_CHARS = 2048;

    private final java.util.function.Function<String, ClassLoader> loaders;
    private final ObjectMapper json;
    private final Redactor redactor;
    private final java.util.function.Function<String, Path> workspaceOf;
    private final Map<ClassLoader, ObjectMapper> mappers = new ConcurrentHashMap<>();
    private final AgentMetrics metrics;

    /** @param loaders each tool's plugin class loader by tool name; missing → this module's loader */
    public ToolDispatcher(Map<String, ClassLoader> loaders, ObjectMapper json, Redactor redactor, Path workspace) {
        this(loaders, json, redactor, sessionId -> workspace);
    }

    /**
     * @param workspaceOf the working directory of a session's tool calls, by session id ({@code caduceus
     *                    batch} gives every prompt its own directory)
     */
    public ToolDispatcher(Map<String, ClassLoader> loaders, ObjectMapper json, Redactor redactor,
                          java.util.function.Function<String, Path> workspaceOf) {
        this(Map.copyOf(loaders)::get, json, redactor, workspaceOf);
    }

    /**
     * @param loaders each tool's plugin class loader by tool name (the catalog's, which knows the tool
     *                sources' tools too); null → this module's loader
     */
    public ToolDispatcher(java.util.function.Function<String, ClassLoader> loaders, ObjectMapper json, Redactor redactor,
                          java.util.function.Function<String, Path> workspaceOf) {
        this(loaders, json, redactor, workspaceOf, AgentMetrics.none());
    }

    /** @param metrics where tool calls are counted (by tool and outcome) and timed */
    public ToolDispatcher(java.util.function.Function<String, ClassLoader> loaders, ObjectMapper json, Redactor redactor,
                          java.util.function.Function<String, Path> workspaceOf, AgentMetrics metrics) {
        this.metrics = metrics;
        this.loaders = loaders;
        this.json = json;
        this.redactor = redactor;
        this.workspaceOf = workspaceOf;
    }

    /**
     * The system-prompt sections of the offered tools for this turn (the memory snapshot), each asked
     * with its plugin's class loader; a tool that fails here is logged and left out.
     */
    java.util.List<String> promptSections(java.util.Collection<Tool> tools, String memoryScope) {
        var sections = new java.util.ArrayList<String>();
        for (var tool : tools) {
            var loader = loader(tool.spec().name());
            try {
                var section = PluginCalls.with(loader, () -> tool.systemPromptSection(memoryScope));
                if (section != null && !section.isBlank()) sections.add(redactor.redact(section));
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(ToolDispatcher.class)
                        .warn("Tool {} failed to build its system prompt section", tool.spec().name(), e);
            }
        }
        return sections;
    }

    /**
     * The workspace as session {@code sessionId}'s calls to {@code tools} see it, for the system prompt: the
     * first tool's {@link Tool#workspaceMount} (a sandbox's mount), else the session's host workspace.
     */
    String workspaceShown(java.util.Collection<Tool> tools, String sessionId) {
        for (var tool : tools) {
            try {
                var mount = PluginCalls.with(loader(tool.spec().name()), tool::workspaceMount);
                if (mount.isPresent()) return mount.get();
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(ToolDispatcher.class)
                        .warn("Tool {} failed to name its workspace mount", tool.spec().name(), e);
            }
        }
        return workspaceOf.apply(sessionId).toString();
    }

    /** Tells the offered tools that the run was interrupted, each with its plugin's class loader. */
    void runInterrupted(java.util.Collection<Tool> tools, String sessionId) {
        for (var tool : tools) {
            var loader = loader(tool.spec().name());
            try {
                PluginCalls.run(loader, () -> tool.runInterrupted(sessionId));
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(ToolDispatcher.class)
                        .warn("Tool {} failed to clean up after an interrupted run", tool.spec().name(), e);
            }
        }
    }

    /** The context of run {@code scope} as a whole, not of one call: for the workspace watchers ({@link RunWatches}). */
    dev.caduceus.spi.tool.ToolContext runContext(TurnScope scope, Cancellation cancel) {
        return new CallContext(scope, workspaceOf.apply(scope.sessionId()), json, cancel, "(run)");
    }

    /** Calls {@code offered.get(call.name())}; never throws except {@link InterruptedException}. */
    ToolOutcome dispatch(ToolCall call, Map<String, Tool> offered, TurnScope scope, Cancellation cancel)
            throws InterruptedException {
        long start = System.nanoTime();
        var tool = offered.get(call.name());
        String content;
        boolean error = true;
        String outcome;
        if (tool == null) {
            outcome = "unknown_tool";
            content = error("Unknown tool: " + call.name() + ". Available tools: " + String.join(", ", offered.keySet()));
        } else if (call.arguments().has(INVALID_ARGUMENTS)) {
            outcome = "invalid_arguments";
            var message = call.arguments().path(INVALID_ARGUMENTS_ERROR).asText("not a JSON object");
            content = error("Invalid arguments for " + call.name() + ": " + message
                    + ". Send the call again with a JSON object.");
        } else {
            var coerced = new ToolCall(call.id(), call.name(),
                    ArgumentCoercion.coerce(call.arguments(), tool.spec().parameters()));
            var result = invoke(tool, coerced, scope, cancel);
            error = result instanceof ToolResult.Error;
            outcome = error ? "error" : "ok";
            content = switch (result) {
                case ToolResult.Ok ok -> cap(redactor.redact(ok.content()), tool.spec().maxResultChars());
                case ToolResult.Error e -> error(e.message());
            };
        }
        var label = tool == null ? AgentMetrics.UNKNOWN_TOOL : call.name(); // never a name the model made up
        metrics.toolCalls().inc(label, outcome);
        long nanos = System.nanoTime() - start;
        if (tool != null) metrics.toolDuration().observe(nanos / 1e9, label);
        return new ToolOutcome(redactor.redact(content), error, nanos / 1_000_000);
    }

    private ToolResult invoke(Tool tool, ToolCall call, TurnScope scope, Cancellation cancel) throws InterruptedException {
        var loader = loader(call.name());
        var context = new CallContext(scope, workspaceOf.apply(scope.sessionId()), mappers.computeIfAbsent(loader, l -> Json.forLoader(json, l)),
                cancel, call.name());
        try {
            var result = PluginCalls.with(loader, () -> tool.call(call, context));
            return result == null ? new ToolResult.Ok("") : result;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception | LinkageError | StackOverflowError e) {
            if (cancel.isCancelled()) throw new InterruptedException("tool cancelled");
            return new ToolResult.Error("Tool execution failed: " + e.getClass().getSimpleName() + ": "
                    + e.getMessage(), false);
        }
    }

    private ClassLoader loader(String tool) {
        var loader = loaders.apply(tool);
        return loader != null ? loader : ToolDispatcher.class.getClassLoader();
    }

    /** {@code {"error": "<message>"}}, the message capped at 2,048 characters. */
    private String error(String message) {
        var capped = message.length() > MAX_ERROR_CHARS ? message.substring(0, MAX_ERROR_CHARS) + "… [truncated]"
                : message;
        try {
            return "{\"error\": " + json.writeValueAsString(TextNode.valueOf(capped)) + "}";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first {@code max} characters plus a {@code [... result truncated: N of M chars omitted ...]} suffix when longer. */
    static String cap(String content, int max) {
        if (content.length() <= max) return content;
        return content.substring(0, max) + "\n\n[... result truncated: " + (content.length() - max) + " of "
                + content.length() + " chars omitted ...]";
    }
}
