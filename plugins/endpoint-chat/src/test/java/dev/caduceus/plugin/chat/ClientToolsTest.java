package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.caduceus.platform.testkit.Turn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: the client's own functions next to the server's tools in one agent turn, over the plain Chat Completions
 * wire, on the real host with a server tool ({@code memory}) and the scripted model. What the model saw is read from
 * its recorded requests; what the client gets is the response as OpenAI shapes it.
 */
class ClientToolsTest {
    private static final String SECRET = "sk-upstream-secret-0123456789abcdef";
    private static ChatHost chat;
    /** The model requests before this test's. */
    private static int base;

    private static final String WEATHER = """
            {"type":"function","function":{"name":"get_weather","description":"Weather in a city.",
             "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}""";
    private static final String TIME = """
            {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}""";

    @BeforeAll
    static void boot() {
        chat = ChatHost.withPlugins(List.of("tool-memory"), "OPENAI_API_KEY", SECRET);
    }

    @AfterAll
    static void shutDown() {
        if (chat != null) chat.close();
    }

    @BeforeEach
    void reset() {
        chat.reset();
        base = chat.modelCalls();
    }

    /** This test's model request {@code index} (0: its first). */
    private static com.fasterxml.jackson.databind.JsonNode modelRequest(int index) {
        return chat.upstream.chatRequests().get(base + index).body();
    }

    private static Turn.ToolCall memoryCall(String id) {
        return Turn.ToolCall.of(id, "memory", "{\"action\":\"add\",\"target\":\"memory\",\"content\":\"likes tea\"}");
    }

    private static String request(String messages, String tools, String extra) {
        return "{\"messages\":" + messages + ",\"tools\":[" + tools + "]" + extra + "}";
    }

    /** The roles, tool calls and tool call ids of the model's request {@code index} after the system prompt. */
    private static String transcript(int index) {
        var out = new StringBuilder();
        var messages = modelRequest(index).path("messages");
        for (int i = 1; i < messages.size(); i++) {
            var m = messages.get(i);
            out.append(m.path("role").asText());
            for (var call : m.path("tool_calls")) out.append(' ').append(call.path("function").path("name").asText())
                    .append('#').append(call.path("id").asText());
            if (m.has("tool_call_id")) out.append(" ->").append(m.path("tool_call_id").asText());
            if (m.path("role").asText().equals("user") || m.path("role").asText().equals("tool"))
                out.append(' ').append(cut(m.path("content").asText()));
            out.append(" | ");
        }
        return out.toString().strip();
    }

    /** Whitespace collapsed, at most 40 characters. */
    private static String cut(String text) {
        var flat = text.replaceAll("\\s+", " ");
        return flat.length() <= 40 ? flat : flat.substring(0, 40);
    }

    private static String toolNames(int index) {
        var names = new ArrayList<String>();
        modelRequest(index).path("tools")
                .forEach(t -> names.add(t.path("function").path("name").asText()));
        return String.join(",", names);
    }

    @Test
    void aServerToolThenAClientToolThenTheFinalAnswerIsOneAgentTurn() throws Exception {
        chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_mem")),
                Turn.toolCalls(Turn.ToolCall.of("up_1", "get_weather", "{\"city\":\"Oslo\"}")).usage(10, 3),
                Turn.text("It is sunny in Oslo."));
        var first = chat.post(request("[{\"role\":\"user\",\"content\":\"Remember I like tea, then the weather in Oslo?\"}]",
                WEATHER, ""));
        assertEquals(200, first.status(), first.body());
        var choice = first.json().path("choices").path(0);
        assertEquals("tool_calls", choice.path("finish_reason").asText(), first.body());
        var message = choice.path("message");
        assertTrue(message.path("content").isNull(), "content is null beside tool calls, as OpenAI sends it: " + message);
        assertEquals(1, message.path("tool_calls").size(), "the client gets its own calls only: " + message);
        var call = message.path("tool_calls").path(0);
        var id = call.path("id").asText();
        assertTrue(id.matches("call_[A-Za-z0-9]{24}"), "an id the host issued: " + id);
        assertEquals("function", call.path("type").asText());
        assertEquals("get_weather", call.path("function").path("name").asText());
        assertEquals(ChatHost.JSON.readTree("{\"city\":\"Oslo\"}"),
                ChatHost.JSON.readTree(call.path("function").path("arguments").asText()));
        assertFalse(first.json().has("hermes"), "a tool_calls turn completed: " + first.body());
        assertTrue(toolNames(0).contains("get_weather") && toolNames(0).contains("memory"),
                "the model was offered both kinds: " + toolNames(0));
        assertEquals("auto", modelRequest(0).path("tool_choice").asText());

        // The client runs get_weather and sends its history back, as every OpenAI client does.
        var history = "[{\"role\":\"user\",\"content\":\"Remember I like tea, then the weather in Oslo?\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[" + call + "]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + id + "\",\"content\":\"sunny, 21 C\"}]";
        var second = chat.post(request(history, WEATHER, ""));
        assertEquals(200, second.status(), second.body());
        assertEquals("It is sunny in Oslo.", second.json().path("choices").path(0).path("message").path("content").asText());
        assertEquals("stop", second.json().path("choices").path(0).path("finish_reason").asText());
        var seen = transcript(2);
        assertTrue(seen.matches("user Remember I like tea, then the weather in \\| assistant memory#call_mem \\| tool ->call_mem \\S.* \\| "
                        + "assistant get_weather#" + id + " \\| tool ->" + id + " sunny, 21 C \\|"),
                "the continuation shows the model the server's steps it made before, in order, then the client's result: "
                        + seen);
        assertEquals(3, chat.modelCalls() - base);
    }

    @Test
    void parallelClientCallsBesideAServerCallAreAnsweredTogether() throws Exception {
        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_w", "get_weather", "{\"city\":\"Rome\"}"),
                        memoryCall("call_mem2"), Turn.ToolCall.of("up_t", "get_time", "{}")),
                Turn.text("Rome: warm, 12:00."));
        var first = chat.post(request("[{\"role\":\"user\",\"content\":\"weather and time in Rome\"}]",
                WEATHER + "," + TIME, ",\"parallel_tool_calls\":true"));
        var calls = first.json().path("choices").path(0).path("message").path("tool_calls");
        assertEquals(2, calls.size(), first.body());
        assertEquals("get_weather", calls.path(0).path("function").path("name").asText());
        assertEquals("get_time", calls.path(1).path("function").path("name").asText());
        assertTrue(modelRequest(0).path("parallel_tool_calls").asBoolean());
        var weather = calls.path(0).path("id").asText();
        var time = calls.path(1).path("id").asText();
        var history = "[{\"role\":\"user\",\"content\":\"weather and time in Rome\"},"
                + "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":" + calls + "},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + time + "\",\"content\":\"12:00\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + weather + "\",\"content\":\"warm\"}]";
        var second = chat.post(request(history, WEATHER + "," + TIME, ""));
        assertEquals("Rome: warm, 12:00.", second.json().path("choices").path(0).path("message").path("content").asText());
        assertEquals("user weather and time in Rome | assistant get_weather#" + weather + " memory#call_mem2 get_time#" + time
                        + " | tool ->" + weather + " warm | tool ->call_mem2 " + memoryResult(1) + " | tool ->" + time + " 12:00 |",
                transcript(1), "each answer after its call, in the calls' order");
    }

    /** The first 20 characters of the memory tool's result in model request {@code index}, as {@link #transcript} shows it. */
    private static String memoryResult(int index) {
        for (var m : modelRequest(index).path("messages"))
            if (m.path("role").asText().equals("tool") && m.path("tool_call_id").asText().startsWith("call_mem")) {
                return cut(m.path("content").asText());
            }
        throw new AssertionError("no memory result");
    }

    @Test
    void toolChoiceAndResponseFormatReachTheModel() {
        chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_m3")), Turn.text("{\"ok\":true}"));
        var response = chat.post(request("[{\"role\":\"user\",\"content\":\"go\"}]", WEATHER,
                ",\"tool_choice\":\"required\",\"response_format\":{\"type\":\"json_object\"}"));
        assertEquals(200, response.status(), response.body());
        var firstCall = modelRequest(0);
        var secondCall = modelRequest(1);
        assertEquals("required", firstCall.path("tool_choice").asText());
        assertEquals("auto", secondCall.path("tool_choice").asText(),
                "required holds for the turn's first call only, or the agent could never stop");
        assertEquals("json_object", firstCall.path("response_format").path("type").asText());
        assertEquals("json_object", secondCall.path("response_format").path("type").asText());

        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_n", "get_weather", "{\"city\":\"Bern\"}")));
        var named = chat.post(request("[{\"role\":\"user\",\"content\":\"go\"}]", WEATHER,
                ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}},\"parallel_tool_calls\":false"));
        assertEquals(200, named.status(), named.body());
        var sent = chat.lastModelRequest();
        assertEquals("{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}", sent.path("tool_choice").toString());
        assertFalse(sent.path("parallel_tool_calls").asBoolean(true));

        chat.answers("plain");
        chat.post(request("[{\"role\":\"user\",\"content\":\"go\"}]", WEATHER, ",\"tool_choice\":\"none\""));
        assertEquals("none", chat.lastModelRequest().path("tool_choice").asText());

        chat.answers("host tools only");
        chat.post("{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}],\"tool_choice\":{\"type\":\"function\","
                + "\"function\":{\"name\":\"memory\"}}}");
        assertEquals("memory", chat.lastModelRequest().path("tool_choice").path("function").path("name").asText(),
                "a named server tool may be forced too");
    }

    @Test
    void theStreamCarriesTheClientCallsAsOpenAiStreamsThem() throws Exception {
        chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_ms")),
                Turn.toolCalls(Turn.ToolCall.of("up_s", "get_weather", "{\"city\":\"Lima\"}")).usage(7, 2));
        var response = chat.post(request("[{\"role\":\"user\",\"content\":\"weather in Lima\"}]", WEATHER,
                ",\"stream\":true"));
        assertEquals(200, response.status(), response.body());
        var lines = ChatHost.wire(response.body());
        var id = lines.stream().filter(l -> l.contains("\"id\":\"call_")).findFirst().orElseThrow()
                .replaceAll(".*\"id\":\"(call_[A-Za-z0-9]{24})\".*", "$1");
        var head = "{\"id\":\"chatcmpl-ID\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"hermes-agent\",";
        assertEquals(List.of(
                "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}",
                ": hermes.tool.progress {\"tool\":\"memory\",\"emoji\":\"🧠\",\"label\":\"memory: add\",\"toolCallId\":\"call_ms\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"memory\",\"toolCallId\":\"call_ms\",\"status\":\"completed\"}",
                "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" + id
                        + "\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}",
                "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        + "{\"arguments\":\"{\\\"city\\\":\\\"Lima\\\"}\"}}]},\"finish_reason\":null}]}",
                "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],"
                        + "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}",
                "data: [DONE]"), lines.stream().map(l -> l.replaceAll("\"label\":\"[^\"]*\"", "\"label\":\"memory: add\"")
                .replaceAll("\"emoji\":\"[^\"]*\"", "\"emoji\":\"🧠\"")).toList(),
                "tool progress names the server's tool only; the client's call is OpenAI's delta.tool_calls");

        // The continuation of a streamed turn finds the server's steps as well (kept before the stream ended).
        chat.upstream.enqueue(Turn.text("Lima: mild."));
        var history = "[{\"role\":\"user\",\"content\":\"weather in Lima\"},{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\""
                + id + "\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Lima\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + id + "\",\"content\":\"mild\"}]";
        var second = chat.post(request(history, WEATHER, ",\"stream\":true"));
        assertTrue(second.body().contains("\"mild.\"") && second.body().contains("\"finish_reason\":\"stop\""), second.body());
        assertTrue(transcript(2).contains("assistant memory#call_ms"), transcript(2));
    }

    @Test
    void aContinuationWithIdsTheHostNeverIssuedIsOrdinaryHistory() {
        chat.answers("fine");
        var history = "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":"
                + "\"call_client_made\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_client_made\",\"content\":\"rainy\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"orphan\",\"content\":\"answers no call\"}]";
        var response = chat.post(request(history, WEATHER, ""));
        assertEquals(200, response.status(), response.body());
        assertEquals("user hi | assistant get_weather#call_client_made | tool ->call_client_made rainy |", transcript(0),
                "passed through as the client sent it, an orphan answer left out");
    }

    @Test
    void anotherKeyCannotSpliceTheStepsOfATurnItDidNotRun() throws Exception {
        chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_private")),
                Turn.toolCalls(Turn.ToolCall.of("up_p", "get_weather", "{\"city\":\"Kyiv\"}")));
        var first = chat.post(request("[{\"role\":\"user\",\"content\":\"weather\"}]", WEATHER, ""));
        var call = first.json().path("choices").path(0).path("message").path("tool_calls").path(0);
        var other = chat.host.addKey("other-" + System.nanoTime());
        chat.answers("other's answer");
        var history = "[{\"role\":\"user\",\"content\":\"weather\"},{\"role\":\"assistant\",\"tool_calls\":[" + call + "]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + call.path("id").asText() + "\",\"content\":\"cold\"}]";
        var response = chat.http().withKey(other).post(ChatHost.PATH, request(history, WEATHER, ""));
        assertEquals(200, response.status(), response.body());
        assertFalse(transcript(2).contains("memory"), "the first key's server steps stay its own: " + transcript(2));
    }

    @Test
    void theClientsResultsAreCappedAndRedactedLikeAToolsAndItsArgumentsToo() throws Exception {
        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_x", "get_weather", "{\"city\":\"" + SECRET + "\"}")));
        var first = chat.post(request("[{\"role\":\"user\",\"content\":\"leak it\"}]", WEATHER, ""));
        var call = first.json().path("choices").path(0).path("message").path("tool_calls").path(0);
        assertFalse(first.body().contains(SECRET), "the server's secret never reaches the client: " + first.body());
        assertTrue(call.path("function").path("arguments").asText().contains("[REDACTED]"), call.toString());

        chat.answers("ok");
        var huge = "x".repeat(150_000);
        var history = "[{\"role\":\"user\",\"content\":\"leak it\"},{\"role\":\"assistant\",\"tool_calls\":[" + call + "]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + call.path("id").asText() + "\",\"content\":\"" + huge + "\"}]";
        chat.post(request(history, WEATHER, ""));
        var messages = chat.lastModelRequest().path("messages");
        var result = messages.get(messages.size() - 1).path("content").asText();
        assertTrue(result.length() < 100_200 && result.contains("result truncated: 50000 of 150000 chars omitted"),
                "capped as a tool's result: " + result.length());
    }

    @Test
    void aNamedSessionKeepsTheWholeTurnInItsTranscript() throws Exception {
        var session = "client-tools-" + System.nanoTime();
        chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_sess")),
                Turn.toolCalls(Turn.ToolCall.of("up_a", "get_weather", "{\"city\":\"Oslo\"}"),
                        Turn.ToolCall.of("up_b", "get_time", "{}")),
                Turn.text("done"));
        var first = chat.post(request("[{\"role\":\"user\",\"content\":\"both\"}]", WEATHER + "," + TIME, ""),
                "X-Hermes-Session-Id", session);
        var calls = (ArrayNode) first.json().path("choices").path(0).path("message").path("tool_calls");
        var history = "[{\"role\":\"user\",\"content\":\"both\"},{\"role\":\"assistant\",\"tool_calls\":" + calls + "},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + calls.path(0).path("id").asText() + "\",\"content\":\"a\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + calls.path(1).path("id").asText() + "\",\"content\":\"b\"}]";
        var second = chat.post(request(history, WEATHER + "," + TIME, ""), "X-Hermes-Session-Id", session);
        assertEquals("done", second.json().path("choices").path(0).path("message").path("content").asText(), second.body());
        var seen = transcript(2);
        assertTrue(seen.startsWith("user both | assistant memory#call_sess | tool ->call_sess")
                && seen.endsWith("tool ->" + calls.path(0).path("id").asText() + " a | tool ->"
                + calls.path(1).path("id").asText() + " b |"), seen);
        chat.answers("next");
        chat.post(request("[{\"role\":\"user\",\"content\":\"and then?\"}]", WEATHER + "," + TIME, ""),
                "X-Hermes-Session-Id", session);
        assertTrue(transcript(3).endsWith("tool ->" + calls.path(1).path("id").asText() + " b | assistant | user and then? |"),
                "the transcript kept both answers of the continuation: " + transcript(3));
    }

    @Test
    void everyBadToolIsA400NamingIt() throws Exception {
        var many = new StringBuilder();
        for (int i = 0; i < 129; i++) many.append(i == 0 ? "" : ",").append(WEATHER.replace("get_weather", "f" + i));
        var bad = List.of(
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        WEATHER.replace("get_weather", "memory"), ""), "tool_name_conflict", "tools[0].function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", many.toString(), ""),
                        "array_above_max_length", "tools"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        TIME + "," + WEATHER.replace("get_weather", "bad name!"), ""), "invalid_value", "tools[1].function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        WEATHER.replace("get_weather", "x".repeat(65)), ""), "invalid_value", "tools[0].function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER + "," + WEATHER, ""),
                        "duplicate_tool_name", "tools[1].function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        WEATHER.replace("\"type\":\"string\"", "\"type\":\"text\""), ""),
                        "invalid_function_parameters", "tools[0].function.parameters"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        WEATHER.replace("\"required\":[\"city\"]", "\"required\":\"city\""), ""),
                        "invalid_function_parameters", "tools[0].function.parameters"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        WEATHER.replace("{\"type\":\"object\",\"properties\"", "{\"type\":\"array\",\"properties\""), ""),
                        "invalid_function_parameters", "tools[0].function.parameters"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        "{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":[1,2]}}", ""),
                        "invalid_function_parameters", "tools[0].function.parameters"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        "{\"type\":\"custom\",\"custom\":{\"name\":\"f\"}}", ""), "unsupported_tool_type", "tools[0].type"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", "{\"type\":\"function\"}", ""),
                        "missing_required_parameter", "tools[0].function"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]",
                        "{\"type\":\"function\",\"function\":{\"name\":7}}", ""), "missing_required_parameter", "tools[0].function.name"},
                new String[] {"{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":{}}", "invalid_type", "tools"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER, ",\"tool_choice\":\"always\""),
                        "invalid_value", "tool_choice"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER,
                        ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"nope\"}}"), "invalid_value", "tool_choice.function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER, ",\"parallel_tool_calls\":\"yes\""),
                        "invalid_type", "parallel_tool_calls"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER, ",\"response_format\":{\"type\":\"yaml\"}"),
                        "invalid_value", "response_format"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"}]", WEATHER,
                        ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{}}"), "missing_required_parameter",
                        "response_format.json_schema.name"},
                new String[] {request("[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"function\":{}}]},"
                        + "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"}]", WEATHER, ""), "invalid_value",
                        "messages[0].tool_calls[0].function.name"},
                new String[] {request("[{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"tool\",\"content\":\"r\"}]", WEATHER, ""),
                        "missing_required_parameter", "messages[1].tool_call_id"});
        int before = chat.modelCalls();
        for (var c : bad) {
            var response = chat.post(c[0]);
            assertEquals(400, response.status(), c[0] + " -> " + response.body());
            var error = response.json().path("error");
            assertEquals("invalid_request_error", error.path("type").asText(), response.body());
            assertEquals(c[2], error.path("param").asText(), response.body());
            assertEquals(c[1], error.path("code").asText(), response.body());
        }
        assertEquals(before, chat.modelCalls(), "no bad request reached the model");
        var orphanOnly = chat.post(request("[{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"}]", WEATHER, ""));
        assertEquals(400, orphanOnly.status(), orphanOnly.body());
        assertEquals("no_user_message", orphanOnly.json().path("error").path("code").asText());
    }

    @Test
    void proxyModeForwardsTheClientsToolsAndTheRemoteKeepsItsSideOfTheTurn() throws Exception {
        try (var front = dev.caduceus.platform.testkit.TestHost.builder().plugins("endpoint-chat", "relay")
                .env("GATEWAY_PROXY_URL", chat.host.baseUrl().toString()).env("GATEWAY_PROXY_KEY", chat.host.apiKey())
                .start()) {
            chat.upstream.enqueue(Turn.toolCalls(memoryCall("call_remote")),
                    Turn.toolCalls(Turn.ToolCall.of("up_r", "get_weather", "{\"city\":\"Quito\"}")));
            var first = front.http().post(ChatHost.PATH, request("[{\"role\":\"user\",\"content\":\"weather in Quito\"}]",
                    WEATHER, ",\"tool_choice\":\"required\""));
            assertEquals(200, first.status(), first.body());
            assertEquals("tool_calls", first.json().at("/choices/0/finish_reason").asText(), first.body());
            var call = first.json().at("/choices/0/message/tool_calls/0");
            assertEquals("get_weather", call.at("/function/name").asText());
            assertEquals("{\"city\":\"Quito\"}", call.at("/function/arguments").asText());
            assertEquals("required", modelRequest(0).path("tool_choice").asText(), "the relay forwarded tool_choice");
            assertTrue(toolNames(0).contains("get_weather"), "and the tools: " + toolNames(0));

            chat.upstream.enqueue(Turn.text("Quito: spring."));
            var history = "[{\"role\":\"user\",\"content\":\"weather in Quito\"},{\"role\":\"assistant\",\"tool_calls\":["
                    + call + "]},{\"role\":\"tool\",\"tool_call_id\":\"" + call.path("id").asText() + "\",\"content\":\"spring\"}]";
            var second = front.http().post(ChatHost.PATH, request(history, WEATHER, ""));
            assertEquals(200, second.status(), second.body());
            assertEquals("Quito: spring.", second.json().at("/choices/0/message/content").asText(), second.body());
            assertTrue(transcript(2).startsWith("user weather in Quito | assistant memory#call_remote | tool ->call_remote"),
                    "the remote spliced its own steps back: " + transcript(2));
        }
    }

    @Test
    void aKeysToolsetLimitLeavesTheCallersOwnFunctionsAlone() {
        var limited = chat.host.addKeyWithToolsets("limited-" + System.nanoTime(), List.of("memory"));
        chat.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_l", "get_weather", "{\"city\":\"Lima\"}")));
        var response = chat.http().withKey(limited).post(ChatHost.PATH,
                request("[{\"role\":\"user\",\"content\":\"weather\"}]", WEATHER, ""));
        assertEquals(200, response.status(), response.body());
        assertEquals("get_weather", response.json().at("/choices/0/message/tool_calls/0/function/name").asText(), response.body());
        assertEquals("get_weather,memory", String.join(",", java.util.Arrays.stream(toolNames(0).split(",")).sorted().toList()),
                "the key's toolsets limit the server's tools only");
    }

    @Test
    void capabilitiesSayClientToolsAreSupported() {
        // /v1/capabilities is not on this host; the family's features are what it merges.
        var features = chat.host.deployment().features();
        assertTrue(features.path("client_tools").asBoolean(), features.toString());
    }
}
