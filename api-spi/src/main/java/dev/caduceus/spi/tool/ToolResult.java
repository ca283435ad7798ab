package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

/** What a tool call returns to the model. Immutable. */
public sealed interface ToolResult {

    /** Success; {@code content} is shown to the model. */
    record Ok(String content) implements ToolResult {
        public Ok { requireNonNull(content, "content"); }
    }

    /** Failure shown to the model as an error result; the run continues. */
    record Error(String message, boolean retryable) implements ToolResult {
        public Error { requireNonNull(message, "message"); }
    }
}
