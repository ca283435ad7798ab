package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Turn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42 on the Responses wire: the caller's {@code function} tools next to the server's ({@code memory}) in one
 * turn. The server's steps are {@code mcp_call} items (already executed); the caller's calls are {@code function_call}
 * items it runs and answers with {@code function_call_output}, by {@code previous_response_id} or by resending its
 * whole input; the turn goes on with the server's steps in place.
 */
class ResponsesClientToolsTest {
    private static ResponsesHost api;
    private static int base;

    private static final String WEATHER = """
            {"type":"function","name":"get_weather","description":"Weather in a city.",
             "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}""";

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start(b -> b.plugins("tool-memory"));
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
        base = api.modelCalls();
    }

    private static void scriptServerThenClientCall() {
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_mem", "memory",
                        "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"likes tea\"}")),
                Turn.toolCalls(Turn.ToolCall.of("up_1", "get_weather", "{\"city\":\"Oslo\"}")).usage(5, 1));
    }

    /** The model request {@code index} of this test as {@code role[ call…][ ->id]} entries after the system prompt. */
    private static String transcript(int index) {
        var out = new ArrayList<String>();
        var messages = api.upstream.chatRequests().get(base + index).body().path("messages");
        for (int i = 1; i < messages.size(); i++) {
            var m = messages.get(i);
            var entry = new StringBuilder(m.path("role").asText());
            for (var call : m.path("tool_calls")) entry.append(' ').append(call.at("/function/name").asText());
            if (m.has("tool_call_id")) entry.append(" ->").append(m.path("content").asText().length() > 20
                    ? "…" : m.path("content").asText());
            out.add(entry.toString());
        }
        return String.join(" | ", out);
    }

    private static List<String> types(JsonNode output) {
        var types = new ArrayList<String>();
        output.forEach(i -> types.add(i.path("type").asText()));
        return types;
    }

    @Test
    void theServersStepIsAnMcpCallAndTheCallersIsAFunctionCallItAnswers() throws Exception {
        scriptServerThenClientCall();
        var first = api.post("{\"input\":\"tea, then weather in Oslo\",\"tools\":[" + WEATHER + "]}");
        assertEquals(200, first.status(), first.body());
        var body = first.json();
        assertEquals("completed", body.path("status").asText(), "OpenAI ends a function-calling turn completed");
        assertEquals(List.of("mcp_call", "function_call"), types(body.path("output")), body.toString());
        var step = body.path("output").path(0);
        assertEquals("memory", step.path("name").asText());
        assertEquals("caduceus", step.path("server_label").asText());
        assertTrue(step.path("output").asText().length() > 0, step.toString());
        var call = body.path("output").path(1);
        assertEquals("get_weather", call.path("name").asText());
        assertEquals("{\"city\":\"Oslo\"}", call.path("arguments").asText());
        var callId = call.path("call_id").asText();
        assertTrue(callId.matches("call_[A-Za-z0-9]{24}"), callId);

        api.upstream.enqueue(Turn.text("Sunny in Oslo."));
        var second = api.post("{\"previous_response_id\":\"" + body.path("id").asText() + "\",\"tools\":[" + WEATHER
                + "],\"input\":[{\"type\":\"function_call_output\",\"call_id\":\"" + callId + "\",\"output\":\"sunny\"}]}");
        assertEquals(200, second.status(), second.body());
        assertEquals("Sunny in Oslo.", second.json().at("/output/0/content/0/text").asText(), second.body());
        assertEquals("user | assistant memory | tool ->… | assistant get_weather | tool ->sunny", transcript(2),
                "the chain holds the server's step before the caller's call, then its answer");
    }

    @Test
    void aBackgroundResponseEndsWithTheCallersCallAndItsContinuationGoesOn() throws Exception {
        scriptServerThenClientCall();
        var id = api.post("{\"input\":\"tea, then weather in Oslo\",\"background\":true,\"tools\":[" + WEATHER + "]}")
                .json().path("id").asText();
        var body = dev.caduceus.platform.testkit.Eventually.await(java.time.Duration.ofSeconds(30), id + " ended",
                () -> api.get(id).json(), r -> !java.util.Set.of("queued", "in_progress").contains(r.path("status").asText()));
        assertEquals("completed", body.path("status").asText(), "its run does not wait for the call's output: " + body);
        assertEquals(List.of("mcp_call", "function_call"), types(body.path("output")), body.toString());
        var call = body.path("output").path(1);
        api.upstream.enqueue(Turn.text("Sunny in Oslo."));
        var next = api.post("{\"previous_response_id\":\"" + id + "\",\"tools\":[" + WEATHER + "],\"input\":[{\"type\":"
                + "\"function_call_output\",\"call_id\":\"" + call.path("call_id").asText() + "\",\"output\":\"sunny\"}]}");
        assertEquals(200, next.status(), next.body());
        assertEquals("Sunny in Oslo.", next.json().path("output").path(0).path("content").path(0).path("text").asText());
        assertEquals("user | assistant memory | tool ->… | assistant get_weather | tool ->sunny", transcript(2));
    }

    @Test
    void aCallerThatResendsItsWholeInputGetsTheServersStepsBackInPlace() throws Exception {
        scriptServerThenClientCall();
        var first = api.post("{\"input\":\"tea, then weather in Oslo\",\"tools\":[" + WEATHER + "]}").json();
        var mcp = first.path("output").path(0);
        var call = first.path("output").path(1);
        api.upstream.enqueue(Turn.text("Sunny."));
        // What the AI SDK sends: its history with item references to the server's items, its call, its answer.
        var second = api.post("{\"tools\":[" + WEATHER + "],\"input\":[{\"role\":\"user\",\"content\":\"tea, then weather in Oslo\"},"
                + "{\"type\":\"item_reference\",\"id\":\"" + mcp.path("id").asText() + "\"}," + call + ","
                + "{\"type\":\"function_call_output\",\"call_id\":\"" + call.path("call_id").asText() + "\",\"output\":\"sunny\"}]}");
        assertEquals(200, second.status(), second.body());
        assertEquals("user | assistant memory | tool ->… | assistant get_weather | tool ->sunny", transcript(2));

        // A client that resends the mcp_call item itself (no server steps kept for it) shows the model that step.
        api.upstream.enqueue(Turn.text("ok"));
        api.post("{\"input\":[{\"role\":\"user\",\"content\":\"again\"}," + mcp + ",{\"role\":\"user\",\"content\":\"go on\"}]}");
        assertEquals("user | assistant memory | tool ->… | user", transcript(3));
    }

    @Test
    void theStreamCarriesTheCallersCallAsOpenAiStreamsFunctionCalls() throws Exception {
        scriptServerThenClientCall();
        var data = ResponsesHost.data(api.stream("{\"stream\":true,\"input\":\"weather\",\"tools\":[" + WEATHER + "]}"));
        assertEquals(List.of("response.created", "response.in_progress",
                "response.output_item.added", "response.output_item.done", // the server's step
                "response.output_item.added", "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "response.output_item.done", "response.completed"),
                ResponsesHost.types(data));
        assertEquals("mcp_call", data.get(2).at("/item/type").asText());
        var added = data.get(4);
        assertEquals("function_call", added.at("/item/type").asText());
        assertEquals("in_progress", added.at("/item/status").asText());
        assertEquals("", added.at("/item/arguments").asText());
        var itemId = added.at("/item/id").asText();
        assertEquals("{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"" + itemId
                + "\",\"output_index\":1,\"delta\":\"{\\\"city\\\":\\\"Oslo\\\"}\",\"sequence_number\":5}", data.get(5).toString());
        assertEquals("{\"city\":\"Oslo\"}", data.get(6).path("arguments").asText());
        assertEquals("completed", data.get(7).at("/item/status").asText());
        var completed = data.get(8).path("response");
        assertEquals("completed", completed.path("status").asText());
        assertEquals(List.of("mcp_call", "function_call"), types(completed.path("output")));

        var callId = data.get(7).at("/item/call_id").asText();
        api.upstream.enqueue(Turn.text("Sunny."));
        var second = api.post("{\"previous_response_id\":\"" + completed.path("id").asText() + "\",\"input\":["
                + "{\"type\":\"function_call_output\",\"call_id\":\"" + callId + "\",\"output\":\"sunny\"}],\"tools\":[" + WEATHER + "]}");
        assertEquals(200, second.status(), second.body());
        assertEquals("user | assistant memory | tool ->… | assistant get_weather | tool ->sunny", transcript(2));
    }

    @Test
    void toolChoiceAndStructuredOutputReachTheModel() {
        api.upstream.enqueue(Turn.text("{\"ok\":true}"));
        var response = api.post("{\"input\":\"x\",\"tools\":[" + WEATHER + "],\"tool_choice\":{\"type\":\"function\","
                + "\"name\":\"get_weather\"},\"parallel_tool_calls\":false,\"text\":{\"format\":{\"type\":\"json_schema\","
                + "\"name\":\"answer\",\"schema\":{\"type\":\"object\"},\"strict\":true}}}");
        assertEquals(200, response.status(), response.body());
        var sent = api.lastModelRequest();
        assertEquals("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}", sent.path("tool_choice").toString());
        assertEquals(false, sent.path("parallel_tool_calls").asBoolean(true));
        assertEquals("{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"answer\",\"schema\":{\"type\":\"object\"},"
                + "\"strict\":true}}", sent.path("response_format").toString(), "text.format becomes the model's response_format");
        var bad = api.post("{\"input\":\"x\",\"text\":{\"format\":{\"type\":\"yaml\"}}}");
        assertEquals(400, bad.status(), bad.body());
        assertEquals("text.format.type", bad.error().path("param").asText());
    }

    @Test
    void badToolsAre400sNamingThem() {
        int before = api.modelCalls();
        var cases = List.of(
                new String[] {"[" + WEATHER.replace("get_weather", "memory") + "]", "tool_name_conflict", "tools[0].name"},
                new String[] {"[{\"type\":\"web_search_preview\"}]", "unsupported_tool_type", "tools[0].type"},
                new String[] {"[" + WEATHER.replace("get_weather", "a b") + "]", "invalid_value", "tools[0].name"},
                new String[] {"[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{\"type\":\"string\"}}]",
                        "invalid_function_parameters", "tools[0].parameters"});
        for (var c : cases) {
            var response = api.post("{\"input\":\"x\",\"tools\":" + c[0] + "}");
            assertEquals(400, response.status(), response.body());
            assertEquals(c[1], response.error().path("code").asText(), response.body());
            assertEquals(c[2], response.error().path("param").asText(), response.body());
        }
        var choice = api.post("{\"input\":\"x\",\"tools\":[" + WEATHER + "],\"tool_choice\":{\"type\":\"function\",\"name\":\"nope\"}}");
        assertEquals(400, choice.status(), choice.body());
        assertEquals("tool_choice.name", choice.error().path("param").asText());
        var output = api.post("{\"input\":[{\"type\":\"function_call_output\",\"call_id\":\"c\"}]}");
        assertEquals(400, output.status(), output.body());
        assertEquals("input[0].output", output.error().path("param").asText());
        assertEquals(before, api.modelCalls(), "no bad request reached the model");
    }
}
