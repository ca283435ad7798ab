package dev.caduceus.spi.model;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Usage;

/**
 * What a model call produces, in order, ending with exactly one {@link Finish}. Tool-call fragments
 * are assembled by the provider into whole {@link ToolCall}s. Immutable.
 */
public sealed interface ModelEvent {
    record TextDelta(String text) implements ModelEvent {
        public TextDelta { requireNonNull(text, "text"); }
    }

    record ReasoningDelta(String text) implements ModelEvent {
        public ReasoningDelta { requireNonNull(text, "text"); }
    }

    record ToolCall(String id, String name, ObjectNode arguments) implements ModelEvent {
        public ToolCall {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(arguments, "arguments");
        }
    }

    record UsageReport(Usage usage) implements ModelEvent {
        public UsageReport { requireNonNull(usage, "usage"); }
    }

    record Finish(FinishReason reason) implements ModelEvent {
        public Finish { requireNonNull(reason, "reason"); }
    }
}
