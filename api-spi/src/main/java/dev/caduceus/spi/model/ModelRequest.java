package dev.caduceus.spi.model;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.List;

/**
 * One upstream call: the full message list and the tools offered. Immutable.
 *
 * @param toolChoice        whether and which tool the model must call ({@link ToolChoice#AUTO} by default)
 * @param parallelToolCalls whether the model may call several tools at once, or null for its default
 */
public record ModelRequest(String model, List<Message> messages, List<ToolSpec> tools, ModelOptions options,
                           boolean stream, ToolChoice toolChoice, Boolean parallelToolCalls) {
    public ModelRequest {
        requireNonNull(model, "model");
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
        requireNonNull(options, "options");
        requireNonNull(toolChoice, "toolChoice");
    }

    /** A call in which the model decides whether to call tools, with its default parallelism. */
    public ModelRequest(String model, List<Message> messages, List<ToolSpec> tools, ModelOptions options,
                        boolean stream) {
        this(model, messages, tools, options, stream, ToolChoice.AUTO, null);
    }

    /** This call asking for whole answers ({@code stream} false) or a stream. */
    public ModelRequest streaming(boolean stream) {
        return new ModelRequest(model, messages, tools, options, stream, toolChoice, parallelToolCalls);
    }

    /**
     * Whether and which tool a model call must call (OpenAI's {@code tool_choice}). A closed set; the
     * provider writes it in its wire's words. Immutable.
     */
    public sealed interface ToolChoice {
        /** The model decides (the default). */
        ToolChoice AUTO = new Auto();
        /** The model answers without calling a tool. */
        ToolChoice NONE = new None();
        /** The model calls at least one tool. */
        ToolChoice REQUIRED = new Required();

        record Auto() implements ToolChoice {}

        record None() implements ToolChoice {}

        record Required() implements ToolChoice {}

        /** The model calls the tool {@code name}. */
        record Named(String name) implements ToolChoice {
            public Named {
                requireNonNull(name, "name");
            }
        }
    }
}
