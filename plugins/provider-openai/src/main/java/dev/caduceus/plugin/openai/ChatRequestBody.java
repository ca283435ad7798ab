package dev.caduceus.plugin.openai;

import dev.caduceus.support.clienttools.ClientToolsField;
import dev.caduceus.support.clienttools.ToolTranscript;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelRequest;

/**
 * Builds the {@code POST /chat/completions} body (messages, tools sorted by name, the call's {@code tool_choice}
 * ({@code auto} unless the caller chose) and {@code parallel_tool_calls}, streaming with usage, and the optional settings) from a {@link ModelRequest} and the
 * host's {@link ModelSettings}. Stateless; thread-safe.
 */
final class ChatRequestBody {
    private final ObjectMapper json;
    private final ModelSettings settings;
    private final ToolsJson tools;

    ChatRequestBody(ObjectMapper json, ModelSettings settings) {
        this.json = json;
        this.settings = settings;
        this.tools = new ToolsJson(json);
    }

    /**
     * The body. {@code stream} asks for SSE; {@code streamOptions} adds {@code
     * stream_options.include_usage} (dropped for servers that reject it).
     */
    ObjectNode build(ModelRequest request, boolean stream, boolean streamOptions) {
        var body = json.createObjectNode();
        body.put("model", request.model().isBlank() ? settings.name() : request.model());
        var messages = body.putArray("messages");
        for (var message : request.messages()) messages.add(message(message));
        if (!request.tools().isEmpty()) {
            body.putRawValue("tools", tools.of(request.tools()));
            body.put("tool_choice", "auto"); // said, as ever; another choice replaces it
            ClientToolsField.writeChoice(body, request.toolChoice(), request.parallelToolCalls());
        }
        body.put("stream", stream);
        if (stream && streamOptions) body.putObject("stream_options").put("include_usage", true);
        var options = request.options();
        var maxTokens = options.maxTokens() != null ? options.maxTokens() : settings.maxTokens();
        if (maxTokens != null) body.put("max_tokens", maxTokens);
        if (options.temperature() != null) body.put("temperature", options.temperature());
        if (options.reasoningEffort() != null) body.put("reasoning_effort", options.reasoningEffort());
        body.setAll(settings.extraBody().deepCopy());
        body.setAll(options.extra()); // ModelOptions already holds a private copy
        return body;
    }

    private ObjectNode message(Message message) {
        var node = json.createObjectNode().put("role", message.role());
        boolean allText = message.content().stream().allMatch(p -> p instanceof ContentPart.Text);
        if (allText) node.put("content", message.text());
        else node.set("content", parts(message));
        if (!message.toolCalls().isEmpty()) node.set("tool_calls", ToolTranscript.toolCallsJson(message.toolCalls()));
        if (message.toolCallId() != null) node.put("tool_call_id", message.toolCallId());
        return node;
    }

    private ArrayNode parts(Message message) {
        var parts = json.createArrayNode();
        for (var part : message.content()) {
            switch (part) {
                case ContentPart.Text t -> parts.addObject().put("type", "text").put("text", t.text());
                case ContentPart.ImageUrl i -> {
                    var image = parts.addObject().put("type", "image_url").putObject("image_url").put("url", i.url());
                    if (i.detail() != null) image.put("detail", i.detail());
                }
            }
        }
        return parts;
    }
}
