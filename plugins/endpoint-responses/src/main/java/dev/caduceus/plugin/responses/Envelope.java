package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Usage;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The fixed parts of one response object and the JSON shapes of its items, keys in
 * OpenAI's order. Immutable; {@code metadata} is copied into every envelope.
 */
record Envelope(String id, long createdAt, String model, String instructions, String previousResponseId,
                ObjectNode metadata, boolean background, ObjectNode echoed) {
    /** The request fields a response object repeats as they were sent, when they were (else its defaults stand). */
    static final java.util.List<String> ECHOED = java.util.List.of("parallel_tool_calls", "tool_choice", "store",
            "max_output_tokens", "max_tool_calls", "truncation", "text", "prompt_cache_key", "safety_identifier",
            "service_tier");

    Envelope {
        echoed = echoed == null ? JSON.objectNode() : echoed.deepCopy();
    }

    /**
     * The fields of {@link #ECHOED} that {@code body} (a validated create) sets, and {@code conversation} as
     * {@code {"id": …}} when it names a conversation object.
     */
    static ObjectNode echoed(JsonNode body, String conversation) {
        var echoed = JSON.objectNode();
        for (var field : ECHOED)
            if (body.hasNonNull(field)) echoed.set(field, body.get(field).deepCopy());
        if (ConversationObjects.isObjectId(conversation)) echoed.putObject("conversation").put("id", conversation);
        return echoed;
    }

    /** The fixed parts of a stored response object ({@link #build}'s output), to go on building it. */
    static Envelope of(ObjectNode stored) {
        var echoed = JSON.objectNode();
        for (var field : ECHOED)
            if (stored.hasNonNull(field)) echoed.set(field, stored.get(field).deepCopy());
        if (stored.path("conversation").isObject()) echoed.set("conversation", stored.get("conversation").deepCopy());
        var metadata = stored.path("metadata") instanceof ObjectNode m ? m : JSON.objectNode();
        return new Envelope(stored.path("id").asText(), stored.path("created_at").asLong(), stored.path("model").asText(),
                text(stored, "instructions"), text(stored, "previous_response_id"), metadata,
                stored.path("background").asBoolean(false), echoed);
    }

    private static String text(ObjectNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** {@code resp_} + 28 hex. */
    static String newResponseId() {
        return "resp_" + hex(14);
    }

    /** {@code prefix} + 24 hex ({@code msg_}, {@code fc_}, {@code fco_}, {@code rs_}, {@code mcp_}). */
    static String newItemId(String prefix) {
        return prefix + hex(12);
    }

    private static String hex(int bytes) {
        var b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * The response object; {@code usage} and {@code error} may be null. {@code completed_at} is null until
     * {@link #completedAt} sets it.
     */
    ObjectNode build(String status, ArrayNode output, Usage usage, ObjectNode error) {
        var body = JSON.objectNode().put("id", id).put("object", "response").put("status", status)
                .put("created_at", createdAt);
        body.putNull("completed_at");
        body.put("background", background).put("model", model);
        body.set("output", output);
        body.set("usage", usage == null ? JSON.nullNode() : usage(usage));
        body.set("error", error == null ? JSON.nullNode() : error);
        body.putNull("incomplete_details");
        body.put("instructions", instructions);
        body.put("previous_response_id", previousResponseId);
        body.set("metadata", metadata.deepCopy());
        body.put("parallel_tool_calls", true).put("tool_choice", "auto");
        body.putArray("tools");
        body.putNull("temperature").putNull("top_p");
        body.setAll(echoed.deepCopy());
        return body;
    }

    /** {@code body} with {@code completed_at} set to {@code epochSecond} (a completed response's). */
    static ObjectNode completedAt(ObjectNode body, long epochSecond) {
        return body.put("completed_at", epochSecond);
    }

    static ObjectNode usage(Usage usage) {
        var node = JSON.objectNode().put("input_tokens", usage.inputTokens());
        node.putObject("input_tokens_details").put("cached_tokens", usage.cachedTokens());
        node.put("output_tokens", usage.outputTokens());
        node.putObject("output_tokens_details").put("reasoning_tokens", usage.reasoningTokens());
        node.put("total_tokens", usage.totalTokens());
        return node;
    }

    /** {@code {"code":"server_error","message":…,"type":"server_error"}}. */
    static ObjectNode error(String message) {
        return JSON.objectNode().put("code", "server_error").put("message", message).put("type", "server_error");
    }

    static ObjectNode functionCall(String id, String status, String name, String arguments, String callId) {
        return JSON.objectNode().put("id", id).put("type", "function_call").put("status", status).put("name", name)
                .put("arguments", arguments).put("call_id", callId);
    }

    /** The label of the server's own tools in {@code mcp_call} items. */
    static final String SERVER_LABEL = "caduceus";

    /**
     * A step the server ran itself, as OpenAI's {@code mcp_call} item: clients take it as already executed (a
     * {@code function_call} is a call the client must run, and {@code function_call_output} is not an output item).
     * {@code output} null gives the in-progress form.
     */
    static ObjectNode mcpCall(String id, String status, String name, String arguments, String output) {
        var item = JSON.objectNode().put("id", id).put("type", "mcp_call").put("status", status)
                .put("server_label", SERVER_LABEL).put("name", name).put("arguments", arguments);
        item.put("output", output);
        item.putNull("error");
        return item;
    }

    /** Non-streaming form: {@code output} is the raw result string. */
    static ObjectNode functionCallOutput(String id, String callId, String output) {
        return JSON.objectNode().put("id", id).put("type", "function_call_output").put("status", "completed")
                .put("call_id", callId).put("output", output);
    }

    /** Streaming form: {@code output} is {@code [{"type":"input_text","text":…}]}. */
    static ObjectNode streamedCallOutput(String id, String callId, String text) {
        var item = JSON.objectNode().put("id", id).put("type", "function_call_output").put("call_id", callId);
        item.putArray("output").addObject().put("type", "input_text").put("text", text);
        item.put("status", "completed");
        return item;
    }

    /** A message item; {@code text == null} gives the in-progress form with empty content. */
    static ObjectNode message(String id, String status, String text) {
        var item = JSON.objectNode().put("id", id).put("type", "message").put("status", status)
                .put("role", "assistant");
        var content = item.putArray("content");
        if (text != null) content.addObject().put("type", "output_text").put("text", text).putArray("annotations");
        return item;
    }

    /**
     * A reasoning item ({@code rs_…}) carrying tool progress as its one summary part; {@code text ==
     * null} gives the just-added form with an empty summary.
     */
    static ObjectNode reasoning(String id, String text) {
        var item = JSON.objectNode().put("id", id).put("type", "reasoning");
        var summary = item.putArray("summary");
        if (text != null) summary.addObject().put("type", "summary_text").put("text", text);
        return item;
    }

    /** The text of a tool output item in either form. */
    static String outputText(JsonNode item) {
        var output = item.path("output");
        if (output.isArray()) return output.path(0).path("text").asText("");
        return output.asText("");
    }
}
