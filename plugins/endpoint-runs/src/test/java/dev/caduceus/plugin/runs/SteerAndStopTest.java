package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsFixture.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.message.Usage;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SteerAndStopTest {
    final RunsFixture api = new RunsFixture();

    @Test
    void steerAccepted() throws Exception {
        var id = api.newRun();
        var ex = api.steer(id, "{\"input\":\"  also check the tests  \"}");
        assertEquals(200, ex.status());
        assertEquals("{\"object\":\"hermes.run.steer\",\"run_id\":\"" + id + "\",\"accepted\":true}",
                ex.responseBody().toString());
        assertEquals(List.of("also check the tests"), api.runs.steers());
    }

    @Test
    void steerTakesTheFirstNonEmptyOfInputMessageAndText() throws Exception {
        var id = api.newRun();
        api.steer(id, "{\"input\":\"\",\"message\":\"from message\",\"text\":\"from text\"}");
        api.steer(id, "{\"input\":\"   \",\"message\":null,\"text\":\"from text\"}");
        api.steer(id, "{\"input\":42,\"message\":[{\"type\":\"text\",\"text\":\"part one\"},"
                + "{\"type\":\"image_url\",\"image_url\":\"https://x/y.png\"},{\"type\":\"input_text\",\"text\":\"part two\"}]}");
        assertEquals(List.of("from message", "from text", "part one\npart two"), api.runs.steers());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"input\":\"\"}", "{\"input\":\"  \",\"message\":[],\"text\":null}",
            "{\"text\":[{\"type\":\"image_url\",\"image_url\":\"https://x/y.png\"}]}", "[]", "\"just a string\""})
    void noSteerTextIs400(String body) throws Exception {
        assertError(api.steer(api.newRun(), body), 400, "invalid_steer_input",
                "Missing non-empty steer text; expected 'input', 'message', or 'text'.");
        assertTrue(api.runs.steers().isEmpty());
    }

    @Test
    void malformedJsonIs400() throws Exception {
        assertError(api.steer(api.newRun(), "{\"input\":"), 400, "invalid_json", null);
    }

    @Test
    void steerOnAnUnknownRunIs404() throws Exception {
        assertError(api.steer("run_nope", "{\"input\":\"x\"}"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void steerRefusalsAre409sNotToBeRetried() throws Exception {
        var id = api.newRun();
        api.runs.steerOutcome(SteerOutcome.NOT_RUNNING);
        var notRunning = api.steer(id, "{\"input\":\"x\"}");
        assertError(notRunning, 409, "run_not_accepting_steer", "Run is not currently accepting steer input: " + id);
        assertEquals(Optional.of("false"), notRunning.responseHeader("x-should-retry"));
        api.runs.steerOutcome(SteerOutcome.NOT_ACCEPTED);
        var refused = api.steer(id, "{\"input\":\"x\"}");
        assertError(refused, 409, "steer_not_accepted", "Run did not accept steer text: " + id);
        assertEquals(Optional.of("false"), refused.responseHeader("x-should-retry"));
    }

    @Test
    void aFailingHostIs500SteerFailedWithoutItsMessage() throws Exception {
        var id = api.newRun();
        api.runs.steerFailure(new IllegalStateException("secret internals"));
        var ex = api.steer(id, "{\"input\":\"x\"}");
        assertError(ex, 500, "steer_failed", "Steering the run failed: " + id);
        assertEquals("server_error", ex.responseBody().get("error").get("type").asText());
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
    }

    @Test
    void stopAnswersStoppingAndIgnoresTheBody() throws Exception {
        var id = api.newRun();
        var ex = api.stop(id, "{not json");
        assertEquals(200, ex.status());
        assertEquals("{\"run_id\":\"" + id + "\",\"status\":\"stopping\"}", ex.responseBody().toString());
        assertEquals(List.of(id), api.runs.stops());
        assertEquals(RunStatus.STOPPING, api.runs.record(id).orElseThrow().status());
        assertEquals(200, api.stop(id, "").status(), "stop is idempotent while the run is live");
    }

    @Test
    void stoppingARunThatIsNotLiveIs404() throws Exception {
        assertError(api.stop("run_nope", ""), 404, "run_not_found", "Run not found: run_nope");
        var id = api.newRun();
        api.runs.append(id, new RunEvent.Cancelled("stopped", null, Usage.ZERO));
        assertError(api.stop(id, ""), 404, "run_not_found", "Run not found: " + id);
    }
}
