package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.ModelRequest.ToolChoice;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.support.clienttools.ClientToolsField;
import dev.caduceus.support.clienttools.ToolTranscript;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The request body written straight to a generator (issue 48) is, byte for byte, the JSON of the tree it replaced:
 * {@link #tree} below is that tree's builder as it was, kept as the reference.
 */
class ChatRequestBodyTest {
    private final ObjectMapper json = new ObjectMapper();
    private final ToolSpec read = tool("read_file");
    private final ToolSpec write = tool("write_file");

    @Test
    void aPlainTurnAndItsStreamedCall() throws Exception {
        var request = request("", List.of(Message.system("You are"), Message.user("Say \"ok\" ✓")), List.of(),
                options(null, null, null, null), ToolChoice.AUTO, null);
        for (var settings : List.of(settings(null, null), settings(512, null)))
            for (boolean stream : new boolean[] {false, true})
                for (boolean streamOptions : new boolean[] {false, true})
                    same(settings, request, stream, streamOptions);
    }

    @Test
    void toolsEveryChoiceAndParallelism() throws Exception {
        for (var choice : List.of(ToolChoice.AUTO, ToolChoice.NONE, ToolChoice.REQUIRED, new ToolChoice.Named("read_file")))
            for (Boolean parallel : new Boolean[] {null, true, false})
                same(settings(null, null), request("m", List.of(Message.user("hi")), List.of(write, read),
                        options(0.5, 100, "low", null), choice, parallel), true, true);
    }

    @Test
    void partsToolCallsAndToolResults() throws Exception {
        var args = json.createObjectNode().put("path", "a.txt");
        var invalid = json.createObjectNode().put(ToolTranscript.INVALID_ARGUMENTS, "{not json");
        var messages = List.of(
                new Message("user", List.of(new ContentPart.Text("look "), new ContentPart.ImageUrl("https://x/i.png", null),
                        new ContentPart.ImageUrl("data:image/png;base64,AAAA", "high")), List.of(), null, null),
                new Message("assistant", List.of(), List.of(new Message.ToolCallRef("call_1", "read_file", args),
                        new Message.ToolCallRef("call_2", "read_file", invalid)), null, null),
                new Message("tool", List.of(new ContentPart.Text("contents")), List.of(), "call_1", "read_file"),
                new Message("assistant", List.of(new ContentPart.Text("a"), new ContentPart.Text("b")), List.of(), null, null));
        same(settings(null, null), request("m", messages, List.of(read), options(null, null, null, null),
                ToolChoice.AUTO, null), false, false);
    }

    @Test
    void extraFieldsReplaceWhereTheFieldStandsAndFollowTheRestInOrder() throws Exception {
        var extraBody = json.createObjectNode().put("top_p", 0.9).put("model", "from-extra-body").put("stream", "odd");
        extraBody.putObject("tool_choice").put("type", "function");
        extraBody.put("max_tokens", 7).putNull("seed");
        var callExtra = json.createObjectNode().put("seed", 42).put("model", "from-call").put("user", "u1");
        callExtra.putArray("messages").add("replaced");
        callExtra.put("parallel_tool_calls", false).put("temperature", 1.5).put("stream_options", "none");
        for (var settings : List.of(settings(64, extraBody), settings(null, json.createObjectNode())))
            for (var extra : new ObjectNode[] {null, json.createObjectNode(), callExtra})
                for (Boolean parallel : new Boolean[] {null, true})
                    for (var tools : List.of(List.<ToolSpec>of(), List.of(read)))
                        for (boolean stream : new boolean[] {false, true})
                            same(settings, request("m", List.of(Message.user("x")), tools,
                                    options(0.25, null, "high", extra), ToolChoice.REQUIRED, parallel), stream, true);
    }

    private void same(ModelSettings settings, ModelRequest request, boolean stream, boolean streamOptions)
            throws Exception {
        var expected = json.writeValueAsString(tree(settings, request, stream, streamOptions));
        var out = new ByteArrayOutputStream();
        try (var g = json.createGenerator(out)) {
            new ChatRequestBody(json, settings).write(g, request, stream, streamOptions);
        }
        assertEquals(expected, out.toString(StandardCharsets.UTF_8), request + " stream " + stream + " " + streamOptions);
    }

    /** The builder the generator replaced, as it was (the tools' array serialized the same way, as raw JSON). */
    private ObjectNode tree(ModelSettings settings, ModelRequest request, boolean stream, boolean streamOptions)
            throws Exception {
        var body = json.createObjectNode();
        body.put("model", request.model().isBlank() ? settings.name() : request.model());
        var messages = body.putArray("messages");
        for (var message : request.messages()) messages.add(message(message));
        if (!request.tools().isEmpty()) {
            body.putRawValue("tools", new com.fasterxml.jackson.databind.util.RawValue(toolsJson(request.tools())));
            body.put("tool_choice", "auto");
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
        body.setAll(options.extra());
        return body;
    }

    private String toolsJson(List<ToolSpec> specs) throws Exception {
        var tools = json.createArrayNode();
        specs.stream().sorted(java.util.Comparator.comparing(ToolSpec::name)).forEach(spec -> tools.addObject()
                .put("type", "function").putObject("function").put("name", spec.name())
                .put("description", spec.description()).set("parameters", spec.parameters()));
        return json.writeValueAsString(tools);
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

    private ToolSpec tool(String name) {
        var parameters = json.createObjectNode().put("type", "object");
        parameters.putObject("properties").putObject("path").put("type", "string").put("description", "ünïcode \"q\"");
        return new ToolSpec(name, "Does " + name + " <&>", parameters, "file", List.of(), ToolRisk.READ_ONLY, 1000, true,
                false, null);
    }

    private static ModelRequest request(String model, List<Message> messages, List<ToolSpec> tools,
                                        ModelOptions options, ToolChoice choice, Boolean parallel) {
        return new ModelRequest(model, messages, tools, options, false, choice, parallel);
    }

    private ModelOptions options(Double temperature, Integer maxTokens, String effort, ObjectNode extra) {
        return new ModelOptions(temperature, maxTokens, effort, extra == null ? json.createObjectNode() : extra);
    }

    private static ModelSettings settings(Integer maxTokens, ObjectNode extraBody) {
        return new ModelSettings("http://127.0.0.1:9/v1", null, "configured-model", Duration.ofSeconds(5), maxTokens,
                true, false, extraBody);
    }
}
