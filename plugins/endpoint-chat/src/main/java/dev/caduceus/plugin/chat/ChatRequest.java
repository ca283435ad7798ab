package dev.caduceus.plugin.chat;

import dev.caduceus.support.clienttools.ToolTranscript;
import dev.caduceus.support.wire.ContentNormalizer;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.support.wire.Flags;
import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.support.clienttools.ClientToolsField;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One chat-completions request body after validation. Immutable.
 *
 * @param model          the {@code model} string to echo in responses
 * @param stream         whether to answer with server-sent events
 * @param includeUsage   {@code stream_options.include_usage}
 * @param systemText     the flattened system messages ({@code ""} when none)
 * @param messages       user, assistant (with their tool calls) and tool messages, oldest first: the history and
 *                       then this turn's input ({@link ToolTranscript#split}), as the client sent them
 * @param firstUserText  text of the first user message ({@code ""} when none), for the derived session id
 * @param options        {@code reasoning_effort} and {@code service_tier} from {@code model_options}, and the
 *                       {@code response_format} for the model
 * @param clientTools    the client's own functions, {@code tool_choice} and {@code parallel_tool_calls}
 * @param body           the raw body, for the idempotency fingerprint
 */
record ChatRequest(String model, boolean stream, boolean includeUsage, String systemText, List<Message> messages,
                   String firstUserText, ModelOptions options, ClientTools clientTools, JsonNode body) {
    static final int MAX_SYSTEM_BYTES = 64 * 1024;

    ChatRequest {
        requireNonNull(model, "model");
        requireNonNull(systemText, "systemText");
        messages = List.copyOf(messages);
        requireNonNull(firstUserText, "firstUserText");
        requireNonNull(options, "options");
        requireNonNull(clientTools, "clientTools");
    }

    /** Validates {@code body} without client tools (a housekeeping request); every problem is a 400 in the contract's words. */
    static ChatRequest parse(JsonNode body, String advertisedModel) {
        return parse(body, advertisedModel, name -> false, ContentNormalizer.FileParts.NONE);
    }

    /** The history and the turn input, paired as the model needs them ({@link ToolTranscript#split}). */
    ToolTranscript.Split turn() {
        return ToolTranscript.split(messages);
    }

    /**
     * Validates {@code body}; every problem is a 400 in the contract's words.
     *
     * @param hostTool whether a name is one of the server's own tools (a client tool may not take it)
     * @param files    what the users' {@code file} parts become (placed in the workspace, described to the model)
     */
    static ChatRequest parse(JsonNode body, String advertisedModel, java.util.function.Predicate<String> hostTool,
                             ContentNormalizer.FileParts files) {
        var messages = body.get("messages");
        if (!body.isObject() || messages == null || !messages.isArray() || messages.isEmpty())
            throw ApiError.badRequest("missing_messages", "Missing or invalid 'messages' field", null).exception();
        var systems = new ArrayList<String>();
        var kept = new ArrayList<Message>();
        String firstUser = null;
        for (int i = 0; i < messages.size(); i++) {
            var m = messages.get(i);
            var role = m.path("role").asText("").trim().toLowerCase(Locale.ROOT);
            if (role.equals("system")) {
                var text = ContentNormalizer.flattenText(m.get("content"));
                if (!text.isEmpty()) systems.add(text);
            } else if (role.equals("user") || role.equals("assistant")) {
                var parts = ContentNormalizer.normalize(m.get("content"), "messages[" + i + "].content",
                        role.equals("user") ? files : ContentNormalizer.FileParts.NONE);
                var calls = role.equals("assistant") ? ToolTurns.calls(m.get("tool_calls"), "messages[" + i + "].tool_calls")
                        : List.<Message.ToolCallRef>of();
                var message = new Message(role, parts, calls, null, null);
                if (role.equals("user") && firstUser == null) firstUser = textOf(parts);
                kept.add(message);
            } else if (role.equals("tool")) {
                kept.add(ToolTurns.result(m, "messages[" + i + "]"));
            }
        }
        if (kept.isEmpty() || !(visible(kept.getLast()) || kept.getLast().role().equals("tool")))
            throw ApiError.badRequest("no_user_message", "No user message found in messages", null).exception();
        var model = body.path("model").isTextual() && !body.get("model").asText().isEmpty()
                ? body.get("model").asText() : advertisedModel;
        var stream = Flags.parse(body.get("stream"), false);
        var includeUsage = stream && Flags.parse(body.path("stream_options").get("include_usage"), false);
        var clientTools = ClientToolsField.parse(body, ClientToolsField.Shape.CHAT, hostTool);
        return new ChatRequest(model, stream, includeUsage, cutUtf8(String.join("\n", systems), MAX_SYSTEM_BYTES),
                kept, firstUser == null ? "" : firstUser,
                withResponseFormat(dev.caduceus.support.wire.ModelOptionsField.parse(body.get("model_options")),
                        body.get("response_format")), clientTools, body);
    }

    /** {@code response_format} ({@code json_object}, {@code json_schema} with {@code strict}) goes to the model as sent. */
    private static ModelOptions withResponseFormat(ModelOptions options, JsonNode format) {
        if (format == null || format.isNull()) return options;
        var type = format.path("type").asText("");
        if (!format.isObject() || !(type.equals("text") || type.equals("json_object") || type.equals("json_schema")))
            throw ApiError.badRequest("invalid_value", "Invalid 'response_format': expected an object whose 'type' is "
                    + "'text', 'json_object' or 'json_schema'.", "response_format").exception();
        if (type.equals("json_schema") && !format.path("json_schema").path("name").isTextual())
            throw ApiError.badRequest("missing_required_parameter", "Missing required parameter: "
                    + "'response_format.json_schema.name'.", "response_format.json_schema.name").exception();
        return dev.caduceus.support.wire.ModelOptionsField.withExtra(options, "response_format", format);
    }

    static boolean visible(Message m) {
        return m.content().stream().anyMatch(p -> switch (p) {
            case ContentPart.Text t -> !t.text().isBlank();
            case ContentPart.ImageUrl i -> true;
        });
    }

    /** The text parts joined with {@code \n} (a loop: once per request, and one part is the common case). */
    private static String textOf(List<ContentPart> parts) {
        String joined = null;
        StringBuilder more = null;
        for (var part : parts) {
            if (!(part instanceof ContentPart.Text text)) continue;
            if (joined == null) joined = text.text();
            else (more == null ? more = new StringBuilder(joined) : more).append('\n').append(text.text());
        }
        return more != null ? more.toString() : joined == null ? "" : joined;
    }

    private static String cutUtf8(String text, int maxBytes) {
        var bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) return text;
        int end = maxBytes;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) end--; // do not split a code point
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
