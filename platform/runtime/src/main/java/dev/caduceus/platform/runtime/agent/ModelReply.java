package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import java.util.List;

/**
 * How one upstream call ended, after retries. Immutable.
 */
sealed interface ModelReply {

    /** The call finished: its text, tool calls, finish reason and usage. */
    record Answer(String text, List<ModelEvent.ToolCall> toolCalls, FinishReason finish, Usage usage)
            implements ModelReply {
        public Answer {
            toolCalls = List.copyOf(toolCalls);
        }
    }

    /** The call failed for good: {@code UPSTREAM_ERROR} or {@code CONTEXT_LENGTH}, with the error text. */
    record Failure(dev.caduceus.spi.agent.StopReason reason, String error, String partialText) implements ModelReply {}

    /** The run was cancelled during the call or a retry wait. */
    record Interrupted(String partialText) implements ModelReply {}
}
