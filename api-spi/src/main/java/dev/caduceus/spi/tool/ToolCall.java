package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** One call the model asked for. Immutable (never mutate {@code arguments}). */
public record ToolCall(String id, String name, ObjectNode arguments) {
    public ToolCall {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(arguments, "arguments");
    }
}
