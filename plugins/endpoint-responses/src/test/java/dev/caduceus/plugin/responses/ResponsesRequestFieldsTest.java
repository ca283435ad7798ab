package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.Turn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Responses request fields clients send (issue 43) are honoured or refused, never dropped: {@code
 * max_output_tokens} reaches the model as {@code max_tokens}, {@code max_tool_calls} caps the agent's tool steps,
 * {@code prompt_cache_key}, {@code safety_identifier} and {@code service_tier} reach the model as they came, {@code
 * truncation} takes {@code auto} or {@code disabled}, {@code include} what this server supports; and {@code POST
 * /v1/responses/input_tokens} counts a request without running it. What the model was sent is read in the scripted
 * upstream's recorded request.
 */
class ResponsesRequestFieldsTest {
    static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    @Test
    void modelFieldsReachTheModel() throws Exception {
        api.answers("ok");
        var created = api.post("{\"input\":\"hi\",\"max_output_tokens\":50,\"prompt_cache_key\":\"k-1\","
                + "\"safety_identifier\":\"user-7\",\"service_tier\":\"flex\",\"truncation\":\"disabled\","
                + "\"include\":[\"message.input_image.image_url\"]}");
        assertEquals(200, created.status(), created.body());
        var sent = api.upstream.chatRequests().getLast().body();
        assertEquals(50, sent.path("max_tokens").asInt(), sent.toString());
        assertEquals("k-1", sent.path("prompt_cache_key").asText());
        assertEquals("user-7", sent.path("safety_identifier").asText());
        assertEquals("flex", sent.path("service_tier").asText());
        var response = created.json(); // the response object repeats them as sent
        assertEquals(50, response.get("max_output_tokens").asInt(), response.toString());
        assertEquals("disabled", response.get("truncation").asText());
        assertEquals("k-1", response.get("prompt_cache_key").asText());
        assertEquals("flex", response.get("service_tier").asText());
        assertEquals(response, api.get(response.get("id").asText()).json(), "and so does the stored one");
    }

    @Test
    void metadataIsStoredReturnedAndListed() throws Exception {
        api.answers("ok");
        var created = api.post("{\"input\":\"tagged\",\"metadata\":{\"ticket\":\"T-1\"}}").json();
        assertEquals("T-1", created.get("metadata").get("ticket").asText());
        assertEquals("T-1", api.get(created.get("id").asText()).json().get("metadata").get("ticket").asText());
        var listed = api.http().get("/v1/responses?limit=1").json().get("data").get(0);
        assertEquals(created.get("id"), listed.get("id"));
        assertEquals("T-1", listed.get("metadata").get("ticket").asText(), listed.toString());
    }

    @Test
    void maxToolCallsCapsTheAgentsToolSteps() throws Exception {
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")),
                Turn.toolCalls(Turn.ToolCall.of("call_2", "terminal", "{}")), Turn.text("done"));
        int before = api.upstream.chatRequests().size();
        var created = api.post("{\"input\":\"work\",\"max_tool_calls\":1}");
        assertEquals(200, created.status(), created.body());
        var requests = api.upstream.chatRequests();
        assertEquals(before + 2, requests.size(), "one step with tools, then the answer");
        assertFalse(requests.getLast().body().has("tools") && requests.getLast().body().path("tools").size() > 0,
                "the answer comes from a call without tools: " + requests.getLast().body());
    }

    @Test
    void unsupportedValuesAreRefusedNamingTheField() throws Exception {
        int before = api.upstream.chatRequests().size();
        assertBad(api.post("{\"input\":\"x\",\"include\":[\"reasoning.encrypted_content\"]}"), "unsupported_value", "include[0]");
        assertBad(api.post("{\"input\":\"x\",\"include\":\"all\"}"), "invalid_type", "include");
        assertBad(api.post("{\"input\":\"x\",\"truncation\":\"sometimes\"}"), "invalid_value", "truncation");
        assertBad(api.post("{\"input\":\"x\",\"max_output_tokens\":\"many\"}"), "invalid_type", "max_output_tokens");
        assertBad(api.post("{\"input\":\"x\",\"max_output_tokens\":0}"), "integer_below_min_value", "max_output_tokens");
        assertBad(api.post("{\"input\":\"x\",\"max_tool_calls\":0}"), "integer_below_min_value", "max_tool_calls");
        assertBad(api.post("{\"input\":\"x\",\"max_tool_calls\":1.5}"), "invalid_type", "max_tool_calls");
        assertBad(api.post("{\"input\":\"x\",\"prompt_cache_key\":7}"), "invalid_type", "prompt_cache_key");
        assertEquals(before, api.upstream.chatRequests().size(), "nothing reached the model");
    }

    @Test
    void inputTokensCountsARequestWithoutRunningIt() throws Exception {
        int asked = api.upstream.chatRequests().size();
        int stored = api.http().get("/v1/responses?limit=100").json().get("data").size();
        var small = tokens("{\"input\":\"hi\"}");
        assertEquals(200, small.status(), small.body());
        assertEquals("response.input_tokens", small.json().get("object").asText());
        var large = tokens("{\"input\":\"" + "word ".repeat(400) + "\",\"instructions\":\"be brief\"}");
        assertTrue(large.json().get("input_tokens").asLong() > small.json().get("input_tokens").asLong() + 400,
                small.body() + " vs " + large.body());

        api.answers("first answer, " + "long ".repeat(200));
        var first = api.post("{\"input\":\"start\"}").json().get("id").asText();
        var chained = tokens("{\"input\":\"next\",\"previous_response_id\":\"" + first + "\"}");
        assertTrue(chained.json().get("input_tokens").asLong() > 200, "the chain's history counts: " + chained.body());

        assertEquals(asked + 1, api.upstream.chatRequests().size(), "only the one real turn reached the model");
        assertEquals(stored + 1, api.http().get("/v1/responses?limit=100").json().get("data").size(), "nothing stored");
        assertEquals(404, tokens("{\"input\":\"x\",\"previous_response_id\":\"resp_unknown\"}").status());
        assertBad(tokens("{oops"), "invalid_json", null);
        assertBad(tokens("{}"), "missing_input", "input");
    }

    private static HostClient.Response tokens(String body) {
        return api.http().post(ResponsesHost.PATH + "/input_tokens", body);
    }

    private static void assertBad(HostClient.Response response, String code, String param) throws Exception {
        assertEquals(400, response.status(), response.body());
        var error = response.json().get("error");
        assertEquals(code, error.get("code").asText(), response.body());
        if (param != null) assertEquals(param, error.get("param").asText(), response.body());
    }
}
