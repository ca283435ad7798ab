package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Steer and stop on the real host: a run held at the model is live and running. */
class SteerAndStopTest {
    static RunsHost api;

    @BeforeAll
    static void start() {
        api = RunsHost.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** A run held at its first model call: status running until {@code held} is released. */
    static String heldRun(HeldTurn held) throws InterruptedException {
        api.upstream.enqueue(held);
        var id = api.started("{\"input\":\"work\"}");
        held.awaitArrival();
        api.awaitStatus(id, "running");
        return id;
    }

    @Test
    void steerAcceptedReachesTheNextModelCall() throws Exception {
        var held = new HeldTurn(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"echo hi\"}")));
        var id = heldRun(held);
        try (var events = api.events(id)) {
            var ex = api.steer(id, "{\"input\":\"  also check the tests  \"}");
            assertEquals(200, ex.status(), ex.body());
            assertEquals("{\"object\":\"hermes.run.steer\",\"run_id\":\"" + id + "\",\"accepted\":true}", ex.body());
            assertTrue(events.until("run.steered").getLast().data().path("accepted").asBoolean());
            held.release();
            events.until("run.completed");
        }
        assertTrue(api.lastModelRequest().toString().contains("also check the tests"), api.lastModelRequest().toString());
        assertFalse(api.lastModelRequest().toString().contains("  also check the tests  "), "trimmed");
    }

    @Test
    void steerTakesTheFirstNonEmptyOfInputMessageAndText() throws Exception {
        var held = new HeldTurn(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal", "{\"command\":\"echo hi\"}")));
        var id = heldRun(held);
        assertEquals(200, api.steer(id, "{\"input\":\"\",\"message\":\"from message\",\"text\":\"from text\"}").status());
        assertEquals(200, api.steer(id, "{\"input\":\"   \",\"message\":null,\"text\":\"from text\"}").status());
        assertEquals(200, api.steer(id, "{\"input\":42,\"message\":[{\"type\":\"text\",\"text\":\"part one\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/y.png\"},{\"type\":\"input_text\",\"text\":\"part two\"}]}")
                .status());
        held.release();
        api.awaitStatus(id, "completed");
        var sent = api.lastModelRequest().toString();
        for (var text : List.of("from message", "from text", "part one\\npart two"))
            assertTrue(sent.contains(text), text + " reached the model: " + sent);
        assertFalse(sent.contains("https://x/y.png"), "images are not steer text");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"input\":\"\"}", "{\"input\":\"  \",\"message\":[],\"text\":null}",
            "{\"text\":[{\"type\":\"image_url\",\"image_url\":\"https://x/y.png\"}]}", "[]", "\"just a string\""})
    void noSteerTextIs400(String body) throws Exception {
        var held = new HeldTurn(Turn.text("done"));
        var id = heldRun(held);
        try (var events = api.events(id)) {
            assertError(api.steer(id, body), 400, "invalid_steer_input",
                    "Missing non-empty steer text; expected 'input', 'message', or 'text'.");
            held.release();
            var frames = events.rest();
            assertTrue(frames.stream().noneMatch(f -> f.type().equals("run.steered")), frames.toString());
        }
    }

    @Test
    void malformedJsonIs400() throws Exception {
        var id = api.completedRun("done");
        assertError(api.steer(id, "{\"input\":"), 400, "invalid_json", null);
    }

    @Test
    void steerOnAnUnknownRunIs404() {
        assertError(api.steer("run_nope", "{\"input\":\"x\"}"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void steerRefusalsAre409sNotToBeRetried() throws Exception {
        var request = api.pendingApproval("rm -rf build-test");
        var waiting = request.path("run_id").asText();
        var notRunning = api.steer(waiting, "{\"input\":\"x\"}");
        assertError(notRunning, 409, "run_not_accepting_steer", "Run is not currently accepting steer input: " + waiting);
        assertEquals(Optional.of("false"), notRunning.header("x-should-retry"));
        api.approval(waiting, "{\"choice\":\"deny\"}");
        api.awaitStatus(waiting, "completed");
        var finished = api.steer(waiting, "{\"input\":\"x\"}");
        assertError(finished, 409, "run_not_accepting_steer", null);
        assertEquals(Optional.of("false"), finished.header("x-should-retry"));
    }

    @Test
    void stopAnswersStoppingAndIgnoresTheBody() throws Exception {
        var held = new HeldTurn(Turn.text("never used"));
        var id = heldRun(held);
        try (var events = api.events(id)) {
            var ex = api.stop(id, "{not json");
            assertEquals(200, ex.status(), ex.body());
            assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"stopping\"}", ex.body());
            var again = api.stop(id, "");
            // idempotent while the run is live; once the worker has ended it, it is no longer live (404)
            assertTrue(again.status() == 200 || again.status() == 404, again.body());
            assertEquals("run.cancelled", events.until("run.cancelled").getLast().type());
        } finally {
            held.release();
        }
        assertEquals("cancelled", api.awaitStatus(id, "cancelled").path("status").asText());
    }

    @Test
    void stoppingARunThatIsNotLiveIs404() throws Exception {
        assertError(api.stop("run_nope", ""), 404, "run_not_found", "Run not found: run_nope");
        var id = api.completedRun("done");
        assertError(api.stop(id, ""), 404, "run_not_found", "Run not found: " + id);
    }
}
