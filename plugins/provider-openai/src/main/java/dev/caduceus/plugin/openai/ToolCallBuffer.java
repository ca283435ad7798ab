package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.model.ModelEvent;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Assembles streamed {@code delta.tool_calls[]} fragments into whole calls: grouped by
 * {@code index}, the first {@code id} and {@code function.name} win, {@code function.arguments}
 * fragments are concatenated. A missing id becomes {@code call_} + 24 hex.
 *
 * <p>Arguments that are not a JSON object still produce a call, whose arguments are
 * {@code {"__invalid_arguments__": "<raw text>", "__error__": "<parser message>"}}, so the runtime can
 * answer the model with an "Invalid arguments" tool message instead of failing the turn. An empty
 * arguments string means {@code {}}. One instance per model call; not thread-safe.
 */
final class ToolCallBuffer {
    /** The key holding the raw arguments of a call whose arguments were not a JSON object. */
    static final String INVALID_ARGUMENTS = dev.caduceus.support.clienttools.ToolTranscript.INVALID_ARGUMENTS;
    /** The key holding the parser message of such a call. */
    static final String ARGUMENTS_ERROR = "__error__";

    private final ObjectMapper json;
    private final TreeMap<Integer, Pending> calls = new TreeMap<>();

    ToolCallBuffer(ObjectMapper json) {
        this.json = json;
    }

    /** Adds one element of {@code tool_calls}; {@code position} is used when it has no {@code index}. */
    void add(JsonNode fragment, int position) {
        int index = fragment.path("index").asInt(position);
        var call = calls.computeIfAbsent(index, i -> new Pending());
        var function = fragment.path("function");
        if (call.id == null && textual(fragment.get("id"))) call.id = fragment.get("id").asText();
        if (call.name == null && textual(function.get("name"))) call.name = function.get("name").asText();
        var args = function.get("arguments");
        if (args != null && args.isTextual()) call.arguments.append(args.asText());
        else if (args != null && args.isObject()) call.arguments.append(args); // some servers send an object
    }

    boolean isEmpty() {
        return calls.isEmpty();
    }

    /** The assembled calls in index order, then clears the buffer. Calls without a name are dropped. */
    List<ModelEvent.ToolCall> drain() {
        var out = new ArrayList<ModelEvent.ToolCall>();
        for (var call : calls.values()) {
            if (call.name == null) continue;
            var id = call.id != null ? call.id : "call_" + HexFormat.of().formatHex(randomBytes());
            out.add(new ModelEvent.ToolCall(id, call.name, parse(call.arguments.toString())));
        }
        calls.clear();
        return out;
    }

    private ObjectNode parse(String raw) {
        if (raw.isBlank()) return json.createObjectNode();
        String error;
        try {
            var tree = json.readTree(raw);
            if (tree != null && tree.isObject()) return (ObjectNode) tree;
            error = "expected a JSON object, got " + (tree == null ? "nothing" : tree.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        } catch (JsonProcessingException e) {
            error = e.getOriginalMessage();
        }
        return json.createObjectNode().put(INVALID_ARGUMENTS, raw).put(ARGUMENTS_ERROR, error);
    }

    private static boolean textual(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isEmpty();
    }

    private static byte[] randomBytes() {
        var bytes = new byte[12];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    private static final class Pending {
        String id;
        String name;
        final StringBuilder arguments = new StringBuilder();
    }
}
