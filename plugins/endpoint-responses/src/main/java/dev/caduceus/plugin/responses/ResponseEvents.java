package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ClientGoneException;

/**
 * The fields of each Responses stream event, and the synthesis of a whole event
 * sequence from a stored response object (the replay of a response that was not streamed).
 * Stateless.
 */
final class ResponseEvents {
    static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ResponseEvents() {}

    static ObjectNode response(ObjectNode envelope) {
        var fields = JSON.objectNode();
        fields.set("response", envelope);
        return fields;
    }

    static ObjectNode item(int index, ObjectNode item) {
        var fields = JSON.objectNode().put("output_index", index);
        fields.set("item", item);
        return fields;
    }

    /** {@code response.function_call_arguments.delta}: a fragment of a client call's arguments. */
    static ObjectNode argumentsDelta(String itemId, int index, String delta) {
        return JSON.objectNode().put("item_id", itemId).put("output_index", index).put("delta", delta);
    }

    /** {@code response.function_call_arguments.done}: a client call's whole arguments. */
    static ObjectNode argumentsDone(String itemId, int index, String arguments) {
        return JSON.objectNode().put("item_id", itemId).put("output_index", index).put("arguments", arguments);
    }

    static ObjectNode partAdded(String itemId, int index) {
        var fields = head(itemId, index);
        fields.putObject("part").put("type", "output_text").put("text", "").putArray("annotations");
        ((ObjectNode) fields.get("part")).putArray("logprobs");
        return fields;
    }

    static ObjectNode textDelta(String itemId, int index, String delta) {
        var fields = head(itemId, index).put("delta", delta);
        fields.putArray("logprobs");
        return fields;
    }

    static ObjectNode textDone(String itemId, int index, String text) {
        var fields = head(itemId, index).put("text", text);
        fields.putArray("logprobs");
        return fields;
    }

    static ObjectNode partDone(String itemId, int index, String text) {
        var fields = head(itemId, index);
        fields.putObject("part").put("type", "output_text").put("text", text).putArray("annotations");
        return fields;
    }

    /** {@code response.reasoning_summary_part.added} / {@code .done}: one {@code summary_text} part. */
    static ObjectNode summaryPart(String itemId, int index, String text) {
        var fields = summaryHead(itemId, index);
        fields.putObject("part").put("type", "summary_text").put("text", text);
        return fields;
    }

    /** {@code response.reasoning_summary_text.delta}. */
    static ObjectNode summaryDelta(String itemId, int index, String delta) {
        return summaryHead(itemId, index).put("delta", delta);
    }

    /** {@code response.reasoning_summary_text.done}. */
    static ObjectNode summaryDone(String itemId, int index, String text) {
        return summaryHead(itemId, index).put("text", text);
    }

    private static ObjectNode summaryHead(String itemId, int index) {
        return JSON.objectNode().put("item_id", itemId).put("output_index", index).put("summary_index", 0);
    }

    private static ObjectNode head(String itemId, int index) {
        return JSON.objectNode().put("item_id", itemId).put("output_index", index).put("content_index", 0);
    }

    /**
     * The stream sequence for a stored response: created, in_progress, each item added and done (one
     * delta with the whole text for the message), then the terminal event for its status
     * ({@code response.incomplete} for anything not completed or failed).
     */
    static void synthesize(ObjectNode stored, EventWriter out) throws ClientGoneException {
        var start = stored.deepCopy().put("status", "in_progress");
        start.putArray("output");
        start.putNull("usage");
        start.putNull("error");
        out.emit("response.created", response(start));
        out.emit("response.in_progress", response(start.deepCopy()));
        var output = stored.path("output");
        for (int i = 0; i < output.size(); i++) {
            var item = (ObjectNode) output.get(i);
            switch (item.path("type").asText()) {
                case "function_call" -> {
                    out.emit("response.output_item.added", item(i, item.deepCopy().put("status", "in_progress")));
                    out.emit("response.output_item.done", item(i, item.deepCopy().put("status", "completed")));
                }
                case "mcp_call" -> {
                    out.emit("response.output_item.added", item(i, item.deepCopy().put("status", "in_progress").putNull("output")));
                    out.emit("response.output_item.done", item(i, item.deepCopy()));
                }
                case "function_call_output" -> {
                    var streamed = Envelope.streamedCallOutput(item.path("id").asText(),
                            item.path("call_id").asText(), Envelope.outputText(item));
                    out.emit("response.output_item.added", item(i, streamed));
                    out.emit("response.output_item.done", item(i, streamed.deepCopy()));
                }
                case "message" -> message(i, item, out);
                case "reasoning" -> reasoning(i, item, out);
                default -> out.emit("response.output_item.done", item(i, item.deepCopy()));
            }
        }
        var status = stored.path("status").asText();
        switch (status) {
            case "completed" -> out.emit("response.completed", response(CompletedTruncation.apply(stored)));
            case "failed" -> out.emit("response.failed", response(stored.deepCopy()));
            default -> out.emit("response.incomplete", response(stored.deepCopy().put("status", "incomplete")));
        }
    }

    private static void reasoning(int index, ObjectNode item, EventWriter out) throws ClientGoneException {
        var id = item.path("id").asText();
        var text = item.path("summary").path(0).path("text").asText("");
        out.emit("response.output_item.added", item(index, Envelope.reasoning(id, null)));
        out.emit("response.reasoning_summary_part.added", summaryPart(id, index, ""));
        out.emit("response.reasoning_summary_text.delta", summaryDelta(id, index, text));
        out.emit("response.reasoning_summary_text.done", summaryDone(id, index, text));
        out.emit("response.reasoning_summary_part.done", summaryPart(id, index, text));
        out.emit("response.output_item.done", item(index, Envelope.reasoning(id, text)));
    }

    private static void message(int index, ObjectNode item, EventWriter out) throws ClientGoneException {
        var id = item.path("id").asText();
        var text = item.path("content").path(0).path("text").asText("");
        out.emit("response.output_item.added", item(index, Envelope.message(id, "in_progress", null)));
        out.emit("response.content_part.added", partAdded(id, index));
        out.emit("response.output_text.delta", textDelta(id, index, text));
        out.emit("response.output_text.done", textDone(id, index, text));
        out.emit("response.content_part.done", partDone(id, index, text));
        out.emit("response.output_item.done", item(index, Envelope.message(id, item.path("status").asText("completed"), text)));
    }
}
