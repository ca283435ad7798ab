package dev.caduceus.platform.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Tool statistics of one trajectory: calls counted per function name, each tool
 * result classified success or failure and attributed through {@code tool_call_id}; rendered over
 * every registered tool (sorted) plus unknown names in first-call order. Mutable; confined to one thread.
 */
final class ToolStats {
    /** count, success, failure of one tool. */
    static final class Counts {
        int count;
        int success;
        int failure;
    }

    private final Map<String, Counts> byName = new LinkedHashMap<>();

    /** Computes the statistics of one turn's messages. */
    static ToolStats of(List<Message> messages, ObjectMapper json) {
        var stats = new ToolStats();
        var names = new HashMap<String, String>();
        for (var m : messages) {
            if (m.role().equals("assistant")) {
                for (var call : m.toolCalls()) {
                    stats.counts(call.name()).count++;
                    names.put(call.id(), call.name());
                }
            } else if (m.role().equals("tool")) {
                var name = names.get(m.toolCallId());
                if (name == null) continue;
                if (isFailure(m.text(), json)) stats.counts(name).failure++;
                else stats.counts(name).success++;
            }
        }
        return stats;
    }

    Map<String, Counts> byName() {
        return byName;
    }

    private Counts counts(String name) {
        return byName.computeIfAbsent(name, n -> new Counts());
    }

    /**
     * Whether a tool result is a failure: a JSON object whose {@code error} is present and not null (or whose
     * {@code content} object has a non-null {@code error}), or whose {@code success} is exactly false; or, not JSON,
     * empty or starting with {@code error:} (any case). A non-zero {@code exit_code} alone is not a failure.
     */
    static boolean isFailure(String content, ObjectMapper json) {
        var trimmed = content.strip();
        JsonNode parsed = null;
        try {
            if (!trimmed.isEmpty()) parsed = json.readTree(trimmed);
        } catch (IOException ignored) {
            // not JSON
        }
        if (parsed != null && !parsed.isMissingNode()) {
            if (!parsed.isObject()) return false;
            var error = parsed.get("error");
            if (error != null && !error.isNull()) return true;
            var inner = parsed.get("content");
            if (inner != null && inner.isObject() && inner.has("error") && !inner.get("error").isNull()) return true;
            var success = parsed.get("success");
            return success != null && success.isBoolean() && !success.asBoolean();
        }
        return trimmed.isEmpty() || trimmed.toLowerCase(Locale.ROOT).startsWith("error:");
    }

    /** {@code tool_stats}: every registered tool (sorted), then unknown names in first-call order. */
    ObjectNode toolStats(List<String> registeredSorted) {
        var out = JsonNodeFactory.instance.objectNode();
        for (var name : columns(registeredSorted)) {
            var c = byName.getOrDefault(name, new Counts());
            out.putObject(name).put("count", c.count).put("success", c.success).put("failure", c.failure);
        }
        return out;
    }

    /** {@code tool_error_counts}: the failures in the same columns. */
    ObjectNode errorCounts(List<String> registeredSorted) {
        var out = JsonNodeFactory.instance.objectNode();
        for (var name : columns(registeredSorted))
            out.put(name, byName.getOrDefault(name, new Counts()).failure);
        return out;
    }

    private List<String> columns(List<String> registeredSorted) {
        var columns = new java.util.ArrayList<>(registeredSorted);
        for (var name : byName.keySet()) if (!registeredSorted.contains(name)) columns.add(name);
        return columns;
    }
}
