package dev.caduceus.plugin.responses;

import dev.caduceus.spi.agent.RunRequest.ClientTools;
import dev.caduceus.support.clienttools.ClientToolsField;
import dev.caduceus.support.clienttools.ToolTranscript;

import dev.caduceus.support.wire.ContentNormalizer;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.support.wire.Flags;
import dev.caduceus.spi.model.ModelOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@code POST /v1/responses} body after validation. Immutable.
 *
 * @param model              the {@code model} string to echo
 * @param stream             answer with server-sent events
 * @param background         run detached from the connection ({@code background: true}); needs {@code store}
 * @param store              keep the response (default true)
 * @param input              the input messages, oldest first; the last one is the turn input
 * @param instructions       explicit {@code instructions}, or null (then inherited from the chain)
 * @param previousResponseId {@code previous_response_id}, or null
 * @param conversation       the conversation name, or null
 * @param explicitHistory    {@code conversation_history} messages, or null when absent
 * @param truncateAuto       {@code truncation: "auto"}: only the last 100 history messages are sent
 * @param metadata           {@code metadata} to echo and store
 * @param options            {@code reasoning_effort} and {@code service_tier} from {@code model_options}
 * @param clientTools        the caller's own functions ({@code tools} of type {@code function}), {@code tool_choice}
 *                           and {@code parallel_tool_calls}
 * @param maxIterations      the agent loop's cap from {@code max_tool_calls}: that many model steps may call tools
 *                           (a step's parallel calls count as one), then the answer comes from a call without
 *                           tools; 0 for the deployment's {@code agent.max_iterations}
 * @param body               the raw body, for the idempotency fingerprint and model selection
 */
record ResponseRequest(String model, boolean stream, boolean background, boolean store, List<Message> input, String instructions,
                       String previousResponseId, String conversation, List<Message> explicitHistory,
                       boolean truncateAuto, ObjectNode metadata, ModelOptions options, ClientTools clientTools,
                       int maxIterations, JsonNode body) {
    static final int AUTO_TRUNCATION_MESSAGES = 100;
    private static final java.util.Set<String> TRUNCATIONS = java.util.Set.of("auto", "disabled");
    /** {@code include} values this server can honour: input images are kept with their URLs anyway. */
    static final java.util.Set<String> INCLUDES = java.util.Set.of("message.input_image.image_url");
    /** Request fields passed to the model as they came. */
    static final List<String> PASSED_THROUGH = List.of("prompt_cache_key", "safety_identifier", "service_tier");
    /** The {@code name} of the messages read from an {@code mcp_call} input item: a server step as the client resends it. */
    static final String ECHOED_STEP = "mcp_call";

    ResponseRequest {
        requireNonNull(model, "model");
        input = List.copyOf(input);
        if (explicitHistory != null) explicitHistory = List.copyOf(explicitHistory);
        requireNonNull(metadata, "metadata");
        requireNonNull(options, "options");
        requireNonNull(clientTools, "clientTools");
    }

    /**
     * Validates {@code body}; every problem is a 400 in the contract's words.
     *
     * @param hostTool whether a name is one of the server's own tools (a client function may not take it)
     * @param files    what {@code input_file} parts (and images by {@code file_id}) of the user's input become
     */
    static ResponseRequest parse(JsonNode body, String advertisedModel, java.util.function.Predicate<String> hostTool,
                                 ContentNormalizer.FileParts files) {
        var input = body.get("input");
        if (input == null || input.isNull())
            throw bad("missing_input", "Missing 'input' field", "input");
        var history = history(body.get("conversation_history"));
        var previous = text(body.get("previous_response_id"));
        var conversation = conversation(body.get("conversation"));
        if (conversation != null && previous != null)
            throw bad("conversation_conflict", "Cannot use both 'conversation' and 'previous_response_id'", null);
        var messages = inputMessages(input, files);
        if (messages.isEmpty() || !(visible(messages.getLast()) || messages.getLast().role().equals("tool")))
            throw bad("no_user_message", "No user message found in input", "input");
        var clientTools = ClientToolsField.parse(body, ClientToolsField.Shape.RESPONSES, hostTool);
        var model = body.path("model").isTextual() && !body.get("model").asText().isEmpty()
                ? body.get("model").asText() : advertisedModel;
        var metadata = body.path("metadata").isObject() ? ((ObjectNode) body.get("metadata")).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        var instructions = body.path("instructions").isTextual() ? body.get("instructions").asText() : null;
        var store = Flags.parse(body.get("store"), true);
        var backgroundField = body.get("background");
        if (backgroundField != null && !backgroundField.isNull() && !backgroundField.isBoolean())
            throw bad("invalid_type", "Invalid type for 'background': expected a boolean.", "background");
        var background = Flags.parse(backgroundField, false);
        if (background && !store)
            throw bad("background_requires_store", "Background mode requires 'store' to be true.", "background");
        var truncation = body.get("truncation");
        if (truncation != null && !truncation.isNull() && !(truncation.isTextual() && TRUNCATIONS.contains(truncation.asText())))
            throw bad("invalid_value", "Invalid value for 'truncation': expected 'auto' or 'disabled'.", "truncation");
        checkInclude(body.get("include"));
        var maxToolCalls = count(body.get("max_tool_calls"), "max_tool_calls", 1); // 0: tool_choice "none" says it
        var options = withTextFormat(dev.caduceus.support.wire.ModelOptionsField.parse(body.get("model_options")),
                body.path("text").get("format"));
        var maxOutputTokens = count(body.get("max_output_tokens"), "max_output_tokens", 1);
        if (maxOutputTokens != null)
            options = new ModelOptions(options.temperature(), maxOutputTokens, options.reasoningEffort(), options.extra());
        for (var field : PASSED_THROUGH) { // sent to the model as they came (an OpenAI-compatible upstream knows them)
            var value = body.get(field);
            if (value == null || value.isNull()) continue;
            if (!value.isTextual())
                throw bad("invalid_type", "Invalid type for '" + field + "': expected a string.", field);
            options = dev.caduceus.support.wire.ModelOptionsField.withExtra(options, field, value);
        }
        return new ResponseRequest(model, Flags.parse(body.get("stream"), false), background, store, messages,
                instructions, previous, conversation, history,
                truncation != null && "auto".equals(truncation.asText(null)), metadata, options,
                clientTools, maxToolCalls == null ? 0 : maxToolCalls, body);
    }

    /** {@code input} (a string or an array of items, as a conversation lists them) as messages; no file part. */
    static List<Message> inputMessages(JsonNode input) {
        return inputMessages(input, ContentNormalizer.FileParts.NONE);
    }

    /** {@code input} (a string or an array of items, as sent) as messages, the user's file parts resolved by {@code files}. */
    static List<Message> inputMessages(JsonNode input, ContentNormalizer.FileParts files) {
        var messages = new ArrayList<Message>();
        if (input.isTextual()) {
            messages.add(message("user", ContentNormalizer.normalize(input, "input")));
            return messages;
        }
        if (!input.isArray()) throw bad("invalid_input", "'input' must be a string or array", "input");
        for (int i = 0; i < input.size(); i++) {
            var item = input.get(i);
            if (item.isTextual()) {
                messages.add(message("user", ContentNormalizer.normalize(item, "input[" + i + "]")));
            } else if (item.isObject()) {
                var at = "input[" + i + "]";
                switch (item.path("type").asText("message")) {
                    case "message" -> {
                        var role = item.path("role").isTextual() ? item.get("role").asText().trim().toLowerCase(Locale.ROOT)
                                : "user";
                        messages.add(message(role.isEmpty() ? "user" : role, ContentNormalizer.normalize(item.get("content"),
                                at + ".content", role.isEmpty() || role.equals("user") ? files : ContentNormalizer.FileParts.NONE)));
                    }
                    case "function_call" -> { // the model's call of a client function, sent back with its output
                        var call = new Message.ToolCallRef(required(item, "call_id", at), required(item, "name", at),
                                ToolTranscript.arguments(item.get("arguments")));
                        var last = messages.isEmpty() ? null : messages.getLast();
                        if (last != null && last.role().equals("assistant")) { // calls of one model message stay together
                            var calls = new ArrayList<>(last.toolCalls());
                            calls.add(call);
                            messages.set(messages.size() - 1, new Message("assistant", last.content(), calls, null, null));
                        } else {
                            messages.add(new Message("assistant", List.of(), List.of(call), null, null));
                        }
                    }
                    case "function_call_output" -> messages.add(new Message("tool",
                            List.of(new ContentPart.Text(outputText(item.get("output"), at))), List.of(),
                            required(item, "call_id", at), null));
                    case "mcp_call" -> { // a step the server ran, as a client resends it: the call and its result
                        var id = required(item, "id", at);
                        messages.add(new Message("assistant", List.of(), List.of(new Message.ToolCallRef(id,
                                required(item, "name", at), ToolTranscript.arguments(item.get("arguments")))), null, ECHOED_STEP));
                        var output = item.path("output").isTextual() ? item.get("output").asText()
                                : item.path("error").isTextual() ? "{\"error\": " + Envelope.JSON.textNode(item.get("error").asText()) + "}" : "";
                        messages.add(new Message("tool", List.of(new ContentPart.Text(output)), List.of(), id, ECHOED_STEP));
                    }
                    default -> { } // item_reference, reasoning, …: the server keeps its own side
                }
            }
        }
        return messages;
    }

    /** {@code conversation_history}: null when absent; entries need both {@code role} and {@code content}. */
    private static List<Message> history(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (!node.isArray())
            throw bad("invalid_conversation_history", "'conversation_history' must be an array",
                    "conversation_history");
        var messages = new ArrayList<Message>();
        for (int i = 0; i < node.size(); i++) {
            var entry = node.get(i);
            if (!entry.isObject() || !entry.has("role") || !entry.has("content"))
                throw bad("invalid_conversation_history",
                        "conversation_history[" + i + "] must have 'role' and 'content' fields",
                        "conversation_history[" + i + "]");
            var role = entry.get("role").asText("").trim().toLowerCase(Locale.ROOT);
            var parts = ContentNormalizer.normalize(entry.get("content"), "conversation_history[" + i + "].content");
            // Only user and assistant turns make sense to replay upstream; other roles are dropped, as chat does.
            if (role.equals("user") || role.equals("assistant")) messages.add(message(role, parts));
        }
        return messages;
    }

    /**
     * {@code text.format} (Responses' structured output: {@code json_object}, or {@code json_schema} with {@code name},
     * {@code schema} and {@code strict}) as the model's {@code response_format}; {@code text} (the default) adds nothing.
     */
    private static ModelOptions withTextFormat(ModelOptions options, JsonNode format) {
        if (format == null || format.isNull()) return options;
        var type = format.path("type").asText("");
        var responseFormat = JsonNodeFactory.instance.objectNode();
        switch (type) {
            case "text" -> { return options; }
            case "json_object" -> responseFormat.put("type", "json_object");
            case "json_schema" -> {
                if (!format.path("name").isTextual())
                    throw bad("missing_required_parameter", "Missing required parameter: 'text.format.name'.", "text.format.name");
                if (!format.path("schema").isObject())
                    throw bad("missing_required_parameter", "Missing required parameter: 'text.format.schema'.", "text.format.schema");
                var schema = responseFormat.put("type", "json_schema").putObject("json_schema");
                for (var field : new String[] {"name", "description", "schema", "strict"})
                    if (format.has(field)) schema.set(field, format.get(field));
            }
            default -> throw bad("invalid_value", "Invalid 'text.format.type': expected 'text', 'json_object' or "
                    + "'json_schema'.", "text.format.type");
        }
        return dev.caduceus.support.wire.ModelOptionsField.withExtra(options, "response_format", responseFormat);
    }

    /** {@code include}: an array of the values in {@link #INCLUDES}; anything else is refused, never dropped. */
    private static void checkInclude(JsonNode include) {
        if (include == null || include.isNull()) return;
        if (!include.isArray()) throw bad("invalid_type", "Invalid type for 'include': expected an array.", "include");
        for (int i = 0; i < include.size(); i++) {
            var value = include.get(i).asText("");
            if (!INCLUDES.contains(value))
                throw bad("unsupported_value", "'include' value '" + value + "' is not supported by this server (it supports: "
                        + String.join(", ", INCLUDES) + ").", "include[" + i + "]");
        }
    }

    /** An integer field of at least {@code min}, or null when absent; anything else is a 400 naming it. */
    private static Integer count(JsonNode node, String field, int min) {
        if (node == null || node.isNull()) return null;
        if (!node.isIntegralNumber() || !node.canConvertToInt())
            throw bad("invalid_type", "Invalid type for '" + field + "': expected an integer.", field);
        if (node.asInt() < min)
            throw bad("integer_below_min_value", "Invalid '" + field + "': expected a value >= " + min + ", but got "
                    + node.asInt() + " instead.", field);
        return node.asInt();
    }

    /** A required string field of an input item, else a 400 naming it. */
    private static String required(JsonNode item, String field, String at) {
        var value = item.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty())
            throw bad("missing_required_parameter", "Missing required parameter: '" + at + "." + field + "'.", at + "." + field);
        return value.asText();
    }

    /** A {@code function_call_output}'s output: a string, or a list of {@code input_text} parts. */
    private static String outputText(JsonNode output, String at) {
        if (output == null || output.isNull())
            throw bad("missing_required_parameter", "Missing required parameter: '" + at + ".output'.", at + ".output");
        if (output.isTextual()) return output.asText();
        return ContentNormalizer.flattenText(output);
    }

    private static String conversation(JsonNode node) {
        if (node == null || node.isNull()) return null;
        if (node.isObject()) return text(node.get("id"));
        return text(node);
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText() : null;
    }

    private static Message message(String role, List<ContentPart> parts) {
        return new Message(role, parts, List.of(), null, null);
    }

    private static boolean visible(Message m) {
        return m.content().stream().anyMatch(p -> switch (p) {
            case ContentPart.Text t -> !t.text().isBlank();
            case ContentPart.ImageUrl i -> true;
        });
    }

    private static RuntimeException bad(String code, String message, String param) {
        return ApiError.badRequest(code, message, param).exception();
    }
}
