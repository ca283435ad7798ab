package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * The input items of a stored response in OpenAI's item shapes, oldest first: a {@code message}
 * per user, system or developer message ({@code input_text} / {@code input_image} parts), and for
 * the earlier turns of a chain the assistant {@code message} ({@code output_text}), one
 * {@code function_call} per tool call and one {@code function_call_output} per tool result, as in
 * {@code output}.
 *
 * <p>The transcript keeps messages, not item ids, so ids are derived from the response id and the
 * item's position in this list: {@code msg_<hex>_<n>}, {@code fc_<hex>_<n>}, {@code fco_<hex>_<n>}
 * where {@code <hex>} is the response id without {@code resp_} and {@code n} counts from 0 (oldest).
 * A response's input never changes once stored, so the ids are stable across calls, which is what
 * {@code after} paging needs; the same history message listed under two responses of a chain has
 * two ids. Stateless.
 */
final class InputItems {
    private InputItems() {}

    static List<ObjectNode> of(String responseId, List<Message> messages) {
        var suffix = responseId.startsWith("resp_") ? responseId.substring("resp_".length()) : responseId;
        var items = new ArrayList<ObjectNode>();
        for (var m : messages) {
            switch (m.role()) {
                case "assistant" -> {
                    if (!m.text().isBlank() || m.toolCalls().isEmpty())
                        items.add(Envelope.message(id("msg_", suffix, items), "completed", m.text()));
                    for (var call : m.toolCalls())
                        items.add(Envelope.functionCall(id("fc_", suffix, items), "completed", call.name(),
                                call.arguments().toString(), call.id()));
                }
                case "tool" -> {
                    if (m.toolCallId() != null)
                        items.add(Envelope.functionCallOutput(id("fco_", suffix, items), m.toolCallId(), m.text()));
                }
                default -> items.add(inputMessage(id("msg_", suffix, items), m));
            }
        }
        return items;
    }

    private static String id(String prefix, String suffix, List<ObjectNode> before) {
        return prefix + suffix + "_" + before.size();
    }

    /** OpenAI's {@code ResponseInputMessageItem}. */
    private static ObjectNode inputMessage(String id, Message m) {
        var item = Envelope.JSON.objectNode().put("id", id).put("type", "message").put("status", "completed")
                .put("role", m.role());
        var content = item.putArray("content");
        for (var part : m.content()) {
            switch (part) {
                case ContentPart.Text t -> content.addObject().put("type", "input_text").put("text", t.text());
                case ContentPart.ImageUrl i -> content.addObject().put("type", "input_image")
                        .put("image_url", i.url()).put("detail", i.detail() == null ? "auto" : i.detail());
            }
        }
        return item;
    }
}
