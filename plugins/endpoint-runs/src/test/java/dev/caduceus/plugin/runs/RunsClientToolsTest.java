package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.Turn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42 on the runs API: a run whose model calls the caller's own function waits for it ({@code requires_action},
 * {@code required_action} in OpenAI's Assistants shape, a {@code tool_calls.required} event) until
 * {@code POST /v1/runs/{id}/tool_outputs} hands the outputs over; then the same turn goes on. Stop and steer apply
 * while it waits, and nobody answering within {@code approvals.timeout} ends it.
 */
class RunsClientToolsTest {
    private static RunsHost api;

    private static final String WEATHER = "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}";
    private static final String SUBMIT = "{\"input\":\"weather in Oslo\",\"tools\":[" + WEATHER + "]}";

    @BeforeAll
    static void boot() {
        api = RunsHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.upstream.clearQueue();
    }

    /** A run whose model runs the terminal, then calls get_weather (and, with {@code more}, get_weather twice). */
    private static String waitingRun(boolean twice) throws InterruptedException {
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_srv", "terminal", "{\"command\":\"echo server-step\"}")));
        api.upstream.enqueue(twice
                ? Turn.toolCalls(Turn.ToolCall.of("up_1", "get_weather", "{\"city\":\"Oslo\"}"),
                        Turn.ToolCall.of("up_2", "get_weather", "{\"city\":\"Bergen\"}"))
                : Turn.toolCalls(Turn.ToolCall.of("up_1", "get_weather", "{\"city\":\"Oslo\"}")));
        var id = api.started(SUBMIT);
        api.awaitStatus(id, "requires_action");
        return id;
    }

    private static com.fasterxml.jackson.databind.JsonNode pendingCalls(String id) {
        return api.status(id).json().at("/required_action/submit_tool_outputs/tool_calls");
    }

    private static String outputs(String... idAndOutput) {
        var sb = new StringBuilder("{\"tool_outputs\":[");
        for (int i = 0; i < idAndOutput.length; i += 2)
            sb.append(i == 0 ? "" : ",").append("{\"tool_call_id\":\"").append(idAndOutput[i]).append("\",\"output\":\"")
                    .append(idAndOutput[i + 1]).append("\"}");
        return sb.append("]}").toString();
    }

    @Test
    void aRunWaitsForTheCallersOutputsAndTheSameTurnGoesOn() throws Exception {
        var id = waitingRun(false);
        var view = api.status(id).json();
        assertEquals("submit_tool_outputs", view.at("/required_action/type").asText(), view.toString());
        var call = pendingCalls(id).path(0);
        assertTrue(call.path("id").asText().matches("call_[A-Za-z0-9]{24}"), call.toString());
        assertEquals("get_weather", call.at("/function/name").asText());
        assertEquals("{\"city\":\"Oslo\"}", call.at("/function/arguments").asText());
        assertEquals("tool_calls.required", view.path("last_event").asText());
        assertTrue(RunsHost.ids(api.list("status=requires_action").json()).contains(id), "listed as waiting");

        api.upstream.enqueue(Turn::quotingLastToolResult);
        var accepted = api.http.post("/v1/runs/" + id + "/tool_outputs", outputs(call.path("id").asText(), "sunny"));
        assertEquals(200, accepted.status(), accepted.body());
        assertEquals(1, accepted.json().path("accepted").asInt());
        var done = api.awaitStatus(id, "completed");
        assertEquals("Tool result: sunny", done.path("output").asText());
        assertTrue(done.path("required_action").isMissingNode(), done.toString());
        var seen = api.lastModelMessages();
        assertTrue(seen.indexOf("server-step") > 0 && seen.indexOf("sunny") > seen.indexOf("server-step"),
                "one turn: the terminal's result, then the caller's: " + seen);
        try (var events = api.events(id)) {
            var frames = events.rest();
            var required = frames.stream().filter(f -> "tool_calls.required".equals(f.data().path("event").asText())).toList();
            assertEquals(1, required.size(), frames.toString());
            assertEquals(call.path("id").asText(), required.getFirst().data().at("/tool_calls/0/id").asText());
            assertTrue(frames.stream().noneMatch(f -> "tool.started".equals(f.data().path("event").asText())
                    && "get_weather".equals(f.data().path("tool").asText())), "tool progress is the server's only");
        }
    }

    @Test
    void outputsMustAnswerExactlyThePendingCalls() throws Exception {
        var id = waitingRun(true);
        var calls = pendingCalls(id);
        assertEquals(2, calls.size());
        var first = calls.path(0).path("id").asText();
        var second = calls.path(1).path("id").asText();
        var path = "/v1/runs/" + id + "/tool_outputs";
        RunsHost.assertError(api.http.post(path, outputs(first, "a")), 400, "invalid_tool_outputs", null);
        RunsHost.assertError(api.http.post(path, outputs(first, "a", second, "b", "call_nope", "c")), 400,
                "invalid_tool_outputs", null);
        RunsHost.assertError(api.http.post(path, outputs(first, "a", first, "b")), 400, "invalid_tool_outputs", null);
        RunsHost.assertError(api.http.post(path, "{\"tool_outputs\":[]}"), 400, "invalid_tool_outputs", null);
        RunsHost.assertError(api.http.post(path, "{\"tool_outputs\":[{\"tool_call_id\":\"" + first + "\"}]}"), 400,
                "invalid_tool_outputs", null);
        RunsHost.assertError(api.http.post(path, "{\"tool_outputs\":"), 400, "invalid_json", null);
        RunsHost.assertError(api.http.post("/v1/runs/run_nope/tool_outputs", outputs(first, "a")), 404, "run_not_found", null);
        assertEquals("requires_action", api.status(id).json().path("status").asText(), "bad answers change nothing");
        api.upstream.enqueue(Turn.text("both"));
        assertEquals(200, api.http.post(path, outputs(second, "b", first, "a")).status());
        api.awaitStatus(id, "completed");
        RunsHost.assertError(api.http.post(path, outputs(first, "a", second, "b")), 409, "run_not_requires_action", null);
    }

    @Test
    void badToolsAreRefusedAndOnlyTheRunsOwnKeyAnswersIt() throws Exception {
        int calls = api.upstream.chatRequests().size();
        RunsHost.assertError(api.submit("{\"input\":\"x\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"terminal\"}}]}"),
                400, "tool_name_conflict", null);
        RunsHost.assertError(api.submit("{\"input\":\"x\",\"tools\":[{\"type\":\"function\",\"name\":\"no spaces\"}]}"),
                400, "invalid_value", null);
        RunsHost.assertError(api.submit("{\"input\":\"x\",\"tools\":[" + WEATHER + "],\"tool_choice\":\"sometimes\"}"),
                400, "invalid_value", null);
        assertEquals(calls, api.upstream.chatRequests().size(), "no bad submission reached the model");

        var id = waitingRun(false);
        var call = pendingCalls(id).path(0).path("id").asText();
        var path = "/v1/runs/" + id + "/tool_outputs";
        var other = api.host.addKey("other-" + System.nanoTime());
        RunsHost.assertError(api.http.withKey(other).post(path, outputs(call, "mine")), 404, "run_not_found", null);
        assertEquals(401, api.http.withoutKey().post(path, outputs(call, "nobody")).status());
        assertEquals("requires_action", api.status(id).json().path("status").asText(), "neither answer reached the run");
        assertEquals(200, api.stop(id, "{}").status());
        api.awaitStatus(id, "cancelled");
    }

    @Test
    void stopAndSteerApplyWhileItWaits() throws Exception {
        var stopped = waitingRun(false);
        assertEquals(200, api.stop(stopped, "{}").status());
        var cancelled = api.awaitStatus(stopped, "cancelled");
        assertTrue(cancelled.path("required_action").isMissingNode(), cancelled.toString());

        var steered = waitingRun(false);
        var steer = api.steer(steered, "{\"text\":\"answer in French\"}");
        assertEquals(202, steer.status() == 200 ? 202 : steer.status(), steer.body());
        api.upstream.enqueue(Turn.text("Ensoleillé."));
        var call = pendingCalls(steered).path(0).path("id").asText();
        assertEquals(200, api.http.post("/v1/runs/" + steered + "/tool_outputs", outputs(call, "sunny")).status());
        api.awaitStatus(steered, "completed");
        assertTrue(api.lastModelMessages().endsWith("tool:sunny|user:answer in French|"), api.lastModelMessages());
    }

    @Test
    void nobodyAnsweringWithinTheTimeoutEndsTheRun() throws Exception {
        try (var quick = RunsHost.start(b -> b.env("CADUCEUS__APPROVALS__TIMEOUT", "1"))) {
            quick.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_1", "get_weather", "{\"city\":\"Oslo\"}")));
            var id = quick.started(SUBMIT);
            quick.awaitStatus(id, "cancelled");
            try (var events = quick.events(id)) {
                var frames = events.rest();
                assertEquals("run.cancelled", frames.getLast().data().path("event").asText(), frames.toString());
            }
        }
    }
}
