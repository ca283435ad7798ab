package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import java.util.List;

/**
 * How one upstream call ended, after retries. Immutable.
 */
sealed interface ModelReply {

    /**
     * The call finished: its text, tool calls, finish reason and usage; the route and deployment that answered (null
     * when no route is configured) and what it cost in picodollars.
     */
    record Answer(String text, List<ModelEvent.ToolCall> toolCalls, FinishReason finish, Usage usage, String route,
                  String deployment, long costPico) implements ModelReply {
        public Answer {
            toolCalls = List.copyOf(toolCalls);
        }

        Answer(String text, List<ModelEvent.ToolCall> toolCalls, FinishReason finish, Usage usage) {
            this(text, toolCalls, finish, usage, null, null, 0);
        }

        Answer served(String route, String deployment, long costPico) {
            return new Answer(text, toolCalls, finish, usage, route, deployment, costPico);
        }
    }

    /** The call failed for good: {@code UPSTREAM_ERROR} or {@code CONTEXT_LENGTH}, with the error text. */
    record Failure(dev.caduceus.spi.agent.StopReason reason, String error, String partialText) implements ModelReply {}

    /** The run was cancelled during the call or a retry wait. */
    record Interrupted(String partialText) implements ModelReply {}
}
