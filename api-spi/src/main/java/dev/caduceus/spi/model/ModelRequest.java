package dev.caduceus.spi.model;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.List;

/** One upstream call: the full message list and the tools offered. Immutable. */
public record ModelRequest(String model, List<Message> messages, List<ToolSpec> tools, ModelOptions options,
                           boolean stream) {
    public ModelRequest {
        requireNonNull(model, "model");
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
        requireNonNull(options, "options");
    }
}
