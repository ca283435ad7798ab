package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code POST /v1/runs/{id}/approval} against real pending approvals of the terminal tool. */
class ApprovalTest {
    static RunsHost api;

    @BeforeAll
    static void start() {
        api = RunsHost.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** A run waiting for approval of a recursive delete (denied by the test, it never runs). */
    static String waiting() throws InterruptedException {
        return api.pendingApproval("rm -rf build-test").path("run_id").asText();
    }

    /** Answers the run's approval with deny so it finishes. */
    static void settle(String id) throws InterruptedException {
        api.approval(id, "{\"choice\":\"deny\"}");
        api.awaitStatus(id, "completed");
    }

    @ParameterizedTest
    @CsvSource({"once,once", "ONCE,once", " Session ,session", "Deny,deny", "approve,once", "APPROVED,once",
            "allow,once"})
    void choicesAreCaseInsensitiveWithAliasesForOnce(String sent, String echoed) throws Exception {
        var id = waiting();
        try (var events = api.events(id)) {
            var ex = api.approval(id, "{\"choice\":\"" + sent + "\"}");
            assertEquals(200, ex.status(), ex.body());
            assertEquals("{\"object\":\"hermes.run.approval_response\",\"run_id\":\"" + id + "\",\"choice\":\"" + echoed
                    + "\",\"resolved\":1}", ex.body());
            var responded = events.until("approval.responded").getLast().data();
            assertEquals(echoed, responded.path("choice").asText(), "the run resolved it as " + echoed);
            assertEquals(1, responded.path("resolved").asInt());
            assertFalse(responded.path("timed_out").asBoolean());
        }
        api.awaitStatus(id, "completed");
    }

    @Test
    void alwaysIsOfferedAndTaken() throws Exception {
        // its own pattern (sql-destructive), so the permanent allow it records never skips another test's approval
        var request = api.pendingApproval("echo drop table t");
        var id = request.path("run_id").asText();
        assertTrue(request.path("choices").toString().contains("always"), request.toString());
        assertEquals(ApprovalChoice.ALWAYS.name().toLowerCase(),
                api.approval(id, "{\"choice\":\"always\"}").json().path("choice").asText());
        assertEquals("completed", api.awaitStatus(id, "completed").path("status").asText());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"choice\":\"maybe\"}", "{\"choice\":\"timed_out\"}", "{}", "{\"choice\":null}",
            "{\"choice\":1}", "[]"})
    void anInvalidChoiceIs400AndLeavesTheApprovalPending(String body) throws Exception {
        var id = waiting();
        var ex = api.approval(id, body);
        assertError(ex, 400, "invalid_approval_choice", null);
        assertTrue(ex.error().path("message").asText().endsWith("; use once, session, always or deny"));
        assertEquals("waiting_for_approval", api.status(id).json().path("status").asText());
        settle(id);
    }

    @Test
    void theChoiceMessageQuotesWhatWasSent() throws Exception {
        var id = waiting();
        assertError(api.approval(id, "{\"choice\":\"maybe\"}"), 400, "invalid_approval_choice",
                "Invalid choice 'maybe'; use once, session, always or deny");
        settle(id);
    }

    @Test
    void allAndResolveAllTakeTheFlagRule() {
        assertTrue(ApprovalBody.parse(json("{\"choice\":\"deny\",\"all\":true}")).all());
        assertTrue(ApprovalBody.parse(json("{\"choice\":\"deny\",\"resolve_all\":\"YES\"}")).all());
        assertFalse(ApprovalBody.parse(json("{\"choice\":\"deny\",\"all\":\"off\",\"resolve_all\":\"maybe\"}")).all());
    }

    @Test
    void resolveAllAnswersThePendingRequest() throws Exception {
        var id = waiting();
        var ex = api.approval(id, "{\"choice\":\"deny\",\"all\":1}");
        assertEquals(200, ex.status(), ex.body());
        assertEquals(1, ex.json().path("resolved").asInt());
        api.awaitStatus(id, "completed");
    }

    @Test
    void aRequestIdTargetsThatRequest() throws Exception {
        var request = api.pendingApproval("rm -rf build-test");
        var id = request.path("run_id").asText();
        var ex = api.approval(id, "{\"choice\":\"deny\",\"request_id\":\" " + request.path("request_id").asText() + " \"}");
        assertEquals(200, ex.status(), ex.body());
        assertEquals(1, ex.json().path("resolved").asInt());
        api.awaitStatus(id, "completed");
        assertEquals("9f0c", ApprovalBody.parse(json("{\"choice\":\"once\",\"request_id\":\" 9f0c \"}")).requestId());
        assertNull(ApprovalBody.parse(json("{\"choice\":\"once\",\"request_id\":null}")).requestId());
        assertEquals(256, ApprovalBody.parse(json("{\"choice\":\"once\",\"request_id\":\"" + "r".repeat(256) + "\"}"))
                .requestId().length());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "\"   \"", "42", "{}", "\"rrrr…\""})
    void aMalformedRequestIdIs400(String requestId) throws Exception {
        var id = waiting();
        var value = requestId.equals("\"rrrr…\"") ? "\"" + "r".repeat(257) + "\"" : requestId;
        assertError(api.approval(id, "{\"choice\":\"once\",\"request_id\":" + value + "}"), 400,
                "invalid_approval_request", null);
        settle(id);
    }

    @Test
    void malformedJsonIs400() throws Exception {
        var id = waiting();
        assertError(api.approval(id, "{\"choice\":"), 400, "invalid_json", null);
        settle(id);
    }

    @Test
    void anUnknownRunIs404() {
        assertError(api.approval("run_nope", "{\"choice\":\"once\"}"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void aRunThatIsNotLiveIs409NotToBeRetried() throws Exception {
        var id = api.completedRun("done");
        var ex = api.approval(id, "{\"choice\":\"once\"}");
        assertError(ex, 409, "approval_not_active", "Run has no active approval session: " + id);
        assertEquals(Optional.of("false"), ex.header("x-should-retry"));
    }

    @Test
    void aRunWithoutPendingApprovalIs409NotToBeRetried() throws Exception {
        var held = new dev.caduceus.platform.testkit.HeldTurn(dev.caduceus.platform.testkit.Turn.text("late"));
        api.upstream.enqueue(held);
        var id = api.started("{\"input\":\"hi\"}");
        held.awaitArrival(); // the run is live, at the model, with nothing to approve
        try {
            var ex = api.approval(id, "{\"choice\":\"once\"}");
            assertError(ex, 409, "approval_not_pending", "Run has no pending approval: " + id);
            assertEquals(Optional.of("false"), ex.header("x-should-retry"));
        } finally {
            held.release();
        }
        api.awaitStatus(id, "completed");
    }

    @Test
    void anUnknownRequestIdIs400() throws Exception {
        var id = waiting();
        var ex = api.approval(id, "{\"choice\":\"once\",\"request_id\":\"r9\"}");
        assertError(ex, 400, "invalid_approval_request", "No pending approval request r9 on run " + id);
        assertEquals("request_id", ex.error().path("param").asText());
        settle(id);
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

}
