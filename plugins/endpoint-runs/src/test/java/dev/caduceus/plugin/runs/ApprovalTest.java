package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsFixture.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ApprovalTest {
    final RunsFixture api = new RunsFixture();

    @ParameterizedTest
    @CsvSource({"once,ONCE,once", "ONCE,ONCE,once", " Session ,SESSION,session", "always,ALWAYS,always",
            "Deny,DENY,deny", "approve,ONCE,once", "APPROVED,ONCE,once", "allow,ONCE,once"})
    void choicesAreCaseInsensitiveWithAliasesForOnce(String sent, ApprovalChoice choice, String echoed) throws Exception {
        var id = api.newRun();
        var ex = api.approval(id, "{\"choice\":\"" + sent + "\"}");
        assertEquals(200, ex.status());
        assertEquals("{\"object\":\"hermes.run.approval_response\",\"run_id\":\"" + id + "\",\"choice\":\"" + echoed
                + "\",\"resolved\":1}", ex.responseBody().toString());
        assertEquals(new ApprovalAnswer(choice, null, false), api.runs.answers().getLast());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"choice\":\"maybe\"}", "{\"choice\":\"timed_out\"}", "{}", "{\"choice\":null}",
            "{\"choice\":1}", "[]"})
    void anInvalidChoiceIs400(String body) throws Exception {
        var ex = api.approval(api.newRun(), body);
        assertError(ex, 400, "invalid_approval_choice", null);
        assertTrue(ex.responseBody().get("error").get("message").asText().endsWith("; use once, session, always or deny"));
        assertTrue(api.runs.answers().isEmpty());
    }

    @Test
    void theChoiceMessageQuotesWhatWasSent() throws Exception {
        assertError(api.approval(api.newRun(), "{\"choice\":\"maybe\"}"), 400, "invalid_approval_choice",
                "Invalid choice 'maybe'; use once, session, always or deny");
    }

    @Test
    void allAndResolveAllTakeTheFlagRule() throws Exception {
        var id = api.newRun();
        api.approval(id, "{\"choice\":\"deny\",\"all\":true}");
        assertTrue(api.runs.answers().getLast().all());
        api.approval(id, "{\"choice\":\"deny\",\"resolve_all\":\"YES\"}");
        assertTrue(api.runs.answers().getLast().all());
        api.approval(id, "{\"choice\":\"deny\",\"all\":\"off\",\"resolve_all\":\"maybe\"}");
        assertFalse(api.runs.answers().getLast().all());
    }

    @Test
    void aRequestIdTargetsOneRequest() throws Exception {
        var id = api.newRun();
        api.approval(id, "{\"choice\":\"once\",\"request_id\":\" 9f0c \"}");
        assertEquals("9f0c", api.runs.answers().getLast().requestId());
        api.approval(id, "{\"choice\":\"once\",\"request_id\":null}");
        assertNull(api.runs.answers().getLast().requestId());
        assertEquals(200, api.approval(id, "{\"choice\":\"once\",\"request_id\":\"" + "r".repeat(256) + "\"}").status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "\"   \"", "42", "{}"})
    void aMalformedRequestIdIs400(String requestId) throws Exception {
        assertError(api.approval(api.newRun(), "{\"choice\":\"once\",\"request_id\":" + requestId + "}"), 400,
                "invalid_approval_request", null);
    }

    @Test
    void aRequestIdOver256CharsIs400() throws Exception {
        assertError(api.approval(api.newRun(), "{\"choice\":\"once\",\"request_id\":\"" + "r".repeat(257) + "\"}"),
                400, "invalid_approval_request", null);
    }

    @Test
    void malformedJsonIs400() throws Exception {
        assertError(api.approval(api.newRun(), "{\"choice\":"), 400, "invalid_json", null);
    }

    @Test
    void resolvingSeveralReportsTheCount() throws Exception {
        var id = api.newRun();
        api.runs.approvalOutcome(new ApprovalAnswer.Outcome.Resolved(3));
        assertEquals(3, api.approval(id, "{\"choice\":\"session\",\"all\":1}").responseBody().get("resolved").asInt());
    }

    @Test
    void anUnknownRunIs404() throws Exception {
        assertError(api.approval("run_nope", "{\"choice\":\"once\"}"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void aRunThatIsNotLiveIs409NotToBeRetried() throws Exception {
        var id = api.newRun();
        api.runs.approvalOutcome(new ApprovalAnswer.Outcome.NotActive());
        var ex = api.approval(id, "{\"choice\":\"once\"}");
        assertError(ex, 409, "approval_not_active", "Run has no active approval session: " + id);
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
    }

    @Test
    void aRunWithoutPendingApprovalIs409NotToBeRetried() throws Exception {
        var id = api.newRun();
        api.runs.approvalOutcome(new ApprovalAnswer.Outcome.NotPending());
        var ex = api.approval(id, "{\"choice\":\"once\"}");
        assertError(ex, 409, "approval_not_pending", "Run has no pending approval: " + id);
        assertEquals(Optional.of("false"), ex.responseHeader("x-should-retry"));
    }

    @Test
    void anUnknownRequestIdIs400() throws Exception {
        var id = api.newRun();
        api.runs.approvalOutcome(new ApprovalAnswer.Outcome.UnknownRequest());
        var ex = api.approval(id, "{\"choice\":\"once\",\"request_id\":\"r9\"}");
        assertError(ex, 400, "invalid_approval_request", "No pending approval request r9 on run " + id);
        assertEquals("request_id", ex.responseBody().get("error").get("param").asText());
    }
}
