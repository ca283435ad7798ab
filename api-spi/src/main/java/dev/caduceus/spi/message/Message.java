package dev.caduceus.spi.message;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One conversation message as the agent loop sees it. Immutable.
 *
 * @param role       {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content    content parts; empty for an assistant message that only calls tools
 * @param toolCalls  tool calls requested by an assistant message
 * @param toolCallId for {@code tool} messages, the id of the call this answers
 * @param name       for {@code tool} messages, the tool name; otherwise optional
 */
public record Message(String role, List<ContentPart> content, List<ToolCallRef> toolCalls,
                      String toolCallId, String name) {

    public Message {
        requireNonNull(role, "role");
        content = List.copyOf(content);
        toolCalls = List.copyOf(toolCalls);
    }

    public static Message system(String text) { return text("system", text); }

    public static Message user(String text) { return text("user", text); }

    public static Message assistant(String text) { return text("assistant", text); }

    private static Message text(String role, String text) {
        return new Message(role, List.of(new ContentPart.Text(text)), List.of(), null, null);
    }

    /** The concatenated text parts. */
    public String text() {
        if (content.size() == 1 && content.getFirst() instanceof ContentPart.Text only) return only.text(); // no copy
        var sb = new StringBuilder();
        for (var part : content) if (part instanceof ContentPart.Text t) sb.append(t.text());
        return sb.toString();
    }

    /** A tool call recorded on an assistant message. */
    public record ToolCallRef(String id, String name, ObjectNode arguments) {
        public ToolCallRef {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(arguments, "arguments");
        }
    }
}
