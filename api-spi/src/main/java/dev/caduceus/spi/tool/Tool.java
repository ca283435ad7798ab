package dev.caduceus.spi.tool;

/**
 * A tool the agent can call.
 *
 * <p>Threading: calls may run concurrently (within a turn when {@link ToolSpec#parallelSafe()}, and
 * always across runs). The dispatcher sets the context class loader to the tool's plugin loader,
 * truncates results to {@link ToolSpec#maxResultChars()} and turns exceptions into
 * {@link ToolResult.Error}.
 */
public interface Tool {

    ToolSpec spec();

    /** Whether the tool can run here (its required environment is present); default true. */
    default boolean available() { return true; }

    /** Why {@link #available()} is false, for {@code caduceus plugins} and logs; null when available. */
    default String unavailableReason() { return null; }

    /**
     * How this tool runs in this deployment, for operators: shown in the start-up banner, by
     * {@code caduceus plugins} and in the {@code tools} check of {@code /health/detailed}, which is
     * degraded while any tool's note is a warning. Empty when there is nothing to say. Fixed after
     * the plugin's start.
     */
    default java.util.Optional<Note> note() { return java.util.Optional.empty(); }

    /**
     * An operator's note on a tool.
     *
     * @param text    one line, e.g. {@code "sandbox: bubblewrap 0.8.0; network full"}
     * @param warning whether the operator should act on it (the tool works, but less safely than it could)
     */
    record Note(String text, boolean warning) {
        public Note {
            java.util.Objects.requireNonNull(text, "text");
        }
    }

    /**
     * A section for the system prompt at the start of a turn in which this tool is enabled, such as
     * the memory snapshot; null for none. Called on the run thread.
     *
     * @param memoryScope the turn's memory scope, or null
     */
    default String systemPromptSection(String memoryScope) { return null; }

    /**
     * The path under which this tool's calls see the workspace when it is not the workspace's path on the
     * host (a sandbox mounts it elsewhere, e.g. {@code /workspace}); empty, the default, when they see the
     * host path. The system prompt names one workspace, the path the agent's tools use: the first offered
     * tool's mount, else the host path. Fixed after the plugin's start.
     */
    default java.util.Optional<String> workspaceMount() { return java.util.Optional.empty(); }

    /**
     * A run in which this tool was offered was stopped or lost its client (not on normal completion): reap the
     * session's background work (the terminal kills its background processes). Not called when a
     * run completes normally. Called on the run thread with the plugin's class loader; keep it short.
     */
    default void runInterrupted(String sessionId) {}

    ToolResult call(ToolCall call, ToolContext ctx) throws Exception;
}
