package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.support.clienttools.ClientToolsField;
import dev.caduceus.support.clienttools.ToolTranscript;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the {@code POST /chat/completions} body (messages, tools sorted by name, the call's {@code tool_choice}
 * ({@code auto} unless the caller chose) and {@code parallel_tool_calls}, streaming with usage, and the optional
 * settings) from a {@link ModelRequest} and the host's {@link ModelSettings}, straight to a generator: a tree of the
 * request was ~1 KB of garbage per model call (issue 48). {@code model.extra_body} and the call's own extra fields
 * replace a field of the same name where it stands and follow the others in their order, the call's last, as putting
 * them into the request's object did. Stateless; thread-safe.
 */
final class ChatRequestBody {
    private final ModelSettings settings;
    private final ToolsJson tools;

    ChatRequestBody(ObjectMapper json, ModelSettings settings) {
        this.settings = settings;
        this.tools = new ToolsJson(json);
    }

    /**
     * Writes the body to {@code g}. {@code stream} asks for SSE; {@code streamOptions} adds {@code
     * stream_options.include_usage} (dropped for servers that reject it).
     */
    void write(JsonGenerator g, ModelRequest request, boolean stream, boolean streamOptions) throws IOException {
        var extra = extraFields(request);
        g.writeStartObject();
        if (!replaced(g, extra, "model"))
            g.writeStringField("model", request.model().isBlank() ? settings.name() : request.model());
        if (!replaced(g, extra, "messages")) {
            g.writeArrayFieldStart("messages");
            for (var message : request.messages()) message(g, message);
            g.writeEndArray();
        }
        if (!request.tools().isEmpty()) {
            if (!replaced(g, extra, "tools")) {
                g.writeFieldName("tools");
                g.writeRawValue(tools.of(request.tools())); // its cached UTF-8 bytes, copied
            }
            if (!replaced(g, extra, "tool_choice")) {
                JsonNode choice = ClientToolsField.choiceJson(request.toolChoice()); // null: auto, said as ever
                if (choice == null) g.writeStringField("tool_choice", "auto");
                else tree(g, "tool_choice", choice);
            }
            if (request.parallelToolCalls() != null && !replaced(g, extra, "parallel_tool_calls"))
                g.writeBooleanField("parallel_tool_calls", request.parallelToolCalls());
        }
        if (!replaced(g, extra, "stream")) g.writeBooleanField("stream", stream);
        if (stream && streamOptions && !replaced(g, extra, "stream_options")) {
            g.writeObjectFieldStart("stream_options");
            g.writeBooleanField("include_usage", true);
            g.writeEndObject();
        }
        var options = request.options();
        var maxTokens = options.maxTokens() != null ? options.maxTokens() : settings.maxTokens();
        if (maxTokens != null && !replaced(g, extra, "max_tokens")) g.writeNumberField("max_tokens", maxTokens);
        if (options.temperature() != null && !replaced(g, extra, "temperature"))
            g.writeNumberField("temperature", options.temperature());
        if (options.reasoningEffort() != null && !replaced(g, extra, "reasoning_effort"))
            g.writeStringField("reasoning_effort", options.reasoningEffort());
        for (var field : extra.entrySet()) tree(g, field.getKey(), field.getValue()); // the ones no field above had
        g.writeEndObject();
    }

    /** {@code model.extra_body}, then the call's extra fields over it, in their order; empty (and shared) when none. */
    private Map<String, JsonNode> extraFields(ModelRequest request) {
        var settingsExtra = settings.extraBody();
        var callExtra = request.options().extra(); // never null (ModelOptions)
        if (settingsExtra.isEmpty() && callExtra.isEmpty()) return Map.of();
        var fields = new LinkedHashMap<String, JsonNode>();
        settingsExtra.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
        callExtra.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
        return fields;
    }

    /** Writes the extra field {@code name} in its place when there is one, and takes it from {@code extra}. */
    private static boolean replaced(JsonGenerator g, Map<String, JsonNode> extra, String name) throws IOException {
        if (extra.isEmpty()) return false;
        var value = extra.remove(name);
        if (value == null) return false;
        tree(g, name, value);
        return true;
    }

    private static void tree(JsonGenerator g, String name, JsonNode value) throws IOException {
        g.writeFieldName(name);
        g.writeTree(value);
    }

    private static void message(JsonGenerator g, Message message) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", message.role());
        if (allText(message)) {
            g.writeStringField("content", message.text());
        } else {
            g.writeArrayFieldStart("content");
            for (var part : message.content()) part(g, part);
            g.writeEndArray();
        }
        if (!message.toolCalls().isEmpty()) tree(g, "tool_calls", ToolTranscript.toolCallsJson(message.toolCalls()));
        if (message.toolCallId() != null) g.writeStringField("tool_call_id", message.toolCallId());
        g.writeEndObject();
    }

    private static boolean allText(Message message) {
        for (var part : message.content()) if (!(part instanceof ContentPart.Text)) return false;
        return true;
    }

    private static void part(JsonGenerator g, ContentPart part) throws IOException {
        g.writeStartObject();
        switch (part) {
            case ContentPart.Text t -> {
                g.writeStringField("type", "text");
                g.writeStringField("text", t.text());
            }
            case ContentPart.ImageUrl i -> {
                g.writeStringField("type", "image_url");
                g.writeObjectFieldStart("image_url");
                g.writeStringField("url", i.url());
                if (i.detail() != null) g.writeStringField("detail", i.detail());
                g.writeEndObject();
            }
        }
        g.writeEndObject();
    }
}
