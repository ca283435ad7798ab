package dev.caduceus.platform.runtime.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest.ToolChoice;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.List;
import java.util.Map;

/**
 * A run's {@link RunRequest} as the journal keeps it for resuming ({@code runs.request_json}): every field, the
 * caller's tool choice in its own words ({@code auto}, {@code none}, {@code required}, {@code {"name": …}}).
 * Stateless.
 */
final class StoredRequest {
    private static final TypeReference<List<Message>> MESSAGES = new TypeReference<>() {};
    private static final TypeReference<List<ToolSpec>> SPECS = new TypeReference<>() {};
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {};

    private StoredRequest() {}

    /** {@code r} as stored, and whether its run may wait on people and its caller ({@link #interactive}). */
    static String write(ObjectMapper json, RunRequest r, boolean interactive) {
        var o = json.createObjectNode();
        if (!interactive) o.put("waits", false);
        o.put("model", r.model());
        o.set("messages", json.valueToTree(r.messages()));
        o.put("instructions", r.instructions());
        o.set("toolsets", json.valueToTree(r.toolsets()));
        o.put("session_id", r.sessionId());
        o.put("session_key", r.sessionKey());
        o.set("options", json.valueToTree(r.options()));
        o.put("max_iterations", r.maxIterations());
        o.set("metadata", json.valueToTree(r.metadata()));
        o.put("stream", r.stream());
        o.put("owner", r.owner());
        o.put("origin", r.origin());
        var client = o.putObject("client_tools");
        client.set("tools", json.valueToTree(r.clientTools().tools()));
        switch (r.clientTools().choice()) {
            case ToolChoice.Auto a -> client.put("choice", "auto");
            case ToolChoice.None n -> client.put("choice", "none");
            case ToolChoice.Required q -> client.put("choice", "required");
            case ToolChoice.Named n -> client.putObject("choice").put("name", n.name());
        }
        if (r.clientTools().parallelToolCalls() != null) client.put("parallel", r.clientTools().parallelToolCalls());
        try {
            return json.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot store the run's request", e);
        }
    }

    /** Whether the run of a stored request may wait on people and its caller (asks approvals, waits for its outputs). */
    static boolean interactive(ObjectMapper json, String text) {
        try {
            return json.readTree(text).path("waits").asBoolean(true);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored request that does not parse", e);
        }
    }

    static RunRequest read(ObjectMapper json, String text) {
        try {
            var o = (ObjectNode) json.readTree(text);
            var client = o.path("client_tools");
            var choiceNode = client.path("choice");
            ToolChoice choice = choiceNode.isObject() ? new ToolChoice.Named(choiceNode.path("name").asText())
                    : switch (choiceNode.asText("auto")) {
                        case "none" -> ToolChoice.NONE;
                        case "required" -> ToolChoice.REQUIRED;
                        default -> ToolChoice.AUTO;
                    };
            var tools = new RunRequest.ClientTools(json.convertValue(client.path("tools"), SPECS), choice,
                    client.has("parallel") ? client.path("parallel").asBoolean() : null);
            return new RunRequest(text(o, "model"), json.convertValue(o.path("messages"), MESSAGES), text(o, "instructions"),
                    json.convertValue(o.path("toolsets"), STRINGS), text(o, "session_id"), text(o, "session_key"),
                    json.treeToValue(o.path("options"), ModelOptions.class), o.path("max_iterations").asInt(),
                    json.convertValue(o.path("metadata"), LABELS), o.path("stream").asBoolean(), o.path("owner").asText(),
                    text(o, "origin"), tools);
        } catch (JsonProcessingException | IllegalArgumentException | ClassCastException e) {
            throw new IllegalStateException("unreadable stored run request: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode o, String field) {
        var v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
