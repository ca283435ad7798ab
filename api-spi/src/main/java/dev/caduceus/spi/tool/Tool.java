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

    ToolResult call(ToolCall call, ToolContext ctx) throws Exception;
}
