package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.message.Usage;
import java.time.Instant;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code GET /v1/runs/{run_id}} and the run status object. */
class RunViewTest {
    static final String ID = "run_4b8f0c00000000000000000000000000";
    static final Instant CREATED = Instant.parse("2026-01-01T00:00:00.114Z");
    static final Instant UPDATED = Instant.parse("2026-01-01T00:00:40.551Z");

    static final ObjectMapper JSON = new ObjectMapper();
    static RunsHost api;

    @BeforeAll
    static void start() {
        api = RunsHost.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    static RunRecord record(RunStatus status, String lastEvent, String output, Usage usage, String error,
                            String pendingSteer) {
        return new RunRecord(ID, status, CREATED, UPDATED, "space-session", "hermes-agent", null, 57, lastEvent, output,
                usage, error, pendingSteer, null, "admin");
    }

    @Test
    void aCompletedRunInTheContractsKeyOrder() throws Exception {
        api.upstream.enqueue(Turn.text("Done.").usage(50, 200));
        var id = api.started("{\"input\":\"hi\",\"session_id\":\"space-session\"}");
        api.awaitStatus(id, "completed");
        var ex = api.status(id);
        assertEquals(200, ex.status());
        var view = ex.json();
        var pattern = Pattern.quote("{\"object\":\"hermes.run\",\"run_id\":\"" + id + "\",\"status\":\"completed\","
                + "\"updated_at\":") + "\\d+\\.\\d{3}" + Pattern.quote(",\"created_at\":") + "\\d+\\.\\d{3}"
                + Pattern.quote(",\"session_id\":\"space-session\",\"model\":\"hermes-agent\",\"last_event\":\"run.completed\","
                + "\"output\":\"Done.\",\"usage\":{\"input_tokens\":50,\"output_tokens\":200,\"total_tokens\":250},"
                + "\"job_id\":null,\"last_seq\":" + view.path("last_seq").asLong() + ",\"owner\":\"admin\"}");
        assertTrue(ex.body().matches(pattern), ex.body());
        assertTrue(view.path("last_seq").asLong() >= 2, "a delta and the terminal event at least");
    }

    @Test
    void timestampsKeepThreeDecimalsAndNeverUseExponents() throws Exception {
        var whole = Instant.parse("2026-01-15T09:00:00Z");
        var run = new RunRecord(ID, RunStatus.QUEUED, whole, whole.plusMillis(5), null, "m", "job:a1b2c3d4e5f6", 0, null,
                null, null, null, null, null, "admin");
        var json = JSON.writeValueAsString(RunView.of(run));
        assertEquals("{\"object\":\"hermes.run\",\"run_id\":\"" + ID + "\",\"status\":\"queued\","
                + "\"updated_at\":1768467600.005,\"created_at\":1768467600.000,\"session_id\":null,\"model\":\"m\","
                + "\"job_id\":\"a1b2c3d4e5f6\",\"last_seq\":0,\"owner\":\"admin\"}", json);
    }

    @Test
    void aResumedRunSaysHowOftenWhenAndWhere() throws Exception {
        var whole = Instant.parse("2026-01-15T09:00:00Z");
        var run = new RunRecord(ID, RunStatus.RUNNING, whole, whole.plusSeconds(9), null, "m", null, 4, "resumed", null,
                null, null, null, null, "admin", java.util.List.of(),
                new RunRecord.Resumed(2, whole.plusSeconds(8), "node_0123456789ab"));
        var json = JSON.writeValueAsString(RunView.of(run));
        assertTrue(json.endsWith(",\"last_event\":\"run.resumed\",\"job_id\":null,\"last_seq\":4,\"owner\":\"admin\","
                + "\"resumes\":2,\"resumed_at\":1768467608.000,\"resumed_node\":\"node_0123456789ab\"}"), json);
    }

    @Test
    void aRunningRunHasNoOutputUsageOrError() {
        var view = RunView.of(record(RunStatus.RUNNING, "text_delta", null, null, null, null));
        assertEquals("message.delta", view.get("last_event").asText());
        assertFalse(view.has("output"));
        assertFalse(view.has("usage"));
        assertFalse(view.has("error"));
        assertFalse(view.has("pending_steer"));
        assertFalse(view.has("approval"));
    }

    @Test
    void failedAndInterruptedRunsCarryTheirError() {
        assertEquals("Upstream model returned 401",
                RunView.of(record(RunStatus.FAILED, "failed", null, null, "Upstream model returned 401", null))
                        .get("error").asText());
        var interrupted = RunView.of(record(RunStatus.INTERRUPTED, "interrupted", null, null, null, null));
        assertEquals("The server restarted before this run settled.", interrupted.get("error").asText());
        assertEquals("run.failed", interrupted.get("last_event").asText());
        assertFalse(interrupted.has("output"));
    }

    @Test
    void pendingSteerAndApprovalWhenPresent() {
        var completed = RunView.of(record(RunStatus.COMPLETED, "completed", "ok", null, null, "also check tests"));
        assertEquals("also check tests", completed.get("pending_steer").asText());
        assertEquals("{\"input_tokens\":0,\"output_tokens\":0,\"total_tokens\":0}", completed.get("usage").toString());
        var approval = new dev.caduceus.spi.agent.RunEvent.ApprovalRequested("r1", "rm -rf build/", "Recursive delete", 300,
                "rm-recursive", false);
        var waiting = new RunRecord(ID, RunStatus.WAITING_FOR_APPROVAL, CREATED, UPDATED, "s", "m", null, 13,
                "approval_requested", null, null, null, null, approval, "admin");
        var view = RunView.of(waiting);
        assertEquals("{\"command\":\"rm -rf build/\",\"pattern_key\":\"rm-recursive\",\"pattern_keys\":[\"rm-recursive\"],"
                + "\"description\":\"Recursive delete\",\"allow_permanent\":false,\"allow_session\":true,"
                + "\"request_id\":\"r1\",\"choices\":[\"once\",\"session\",\"deny\"]}", view.get("approval").toString());
        assertEquals("approval.request", view.get("last_event").asText());
        var keys = new java.util.ArrayList<String>();
        view.fieldNames().forEachRemaining(keys::add);
        assertEquals(java.util.List.of("object", "run_id", "status", "updated_at", "created_at", "session_id", "model",
                "last_event", "approval", "job_id", "last_seq", "owner"), keys);
    }

    @ParameterizedTest
    @CsvSource({"text_delta,message.delta", "tool_call_started,tool.started", "tool_call_finished,tool.completed",
            "reasoning_delta,reasoning.available", "approval_requested,approval.request",
            "approval_resolved,approval.responded", "steered,run.steered", "completed,run.completed",
            "failed,run.failed", "interrupted,run.failed", "cancelled,run.cancelled", "stopping,run.stopping"})
    void lastEventIsTheWireName(String logical, String wire) {
        assertEquals(wire, WireEvents.forLogicalName(logical));
        assertEquals(wire, RunView.of(record(RunStatus.RUNNING, logical, null, null, null, null)).get("last_event").asText());
    }

    @Test
    void noLastEventBeforeTheFirstOrForNamesWithoutAWireForm() {
        assertFalse(RunView.of(record(RunStatus.QUEUED, null, null, null, null, null)).has("last_event"));
        assertNull(WireEvents.forLogicalName("started"));
        assertNull(WireEvents.forLogicalName("no_such_event"));
        assertFalse(RunView.of(record(RunStatus.RUNNING, "started", null, null, null, null)).has("last_event"));
        // journaled only with model routes: which deployment answered
        assertEquals("model.usage", WireEvents.forLogicalName("usage"));
    }

    @Test
    void anUnknownRunIs404() {
        assertError(api.status("run_nope"), 404, "run_not_found", "Run not found: run_nope");
    }

    @Test
    void aRunAtTheModelIsFoundRunningWithItsRunIdAsSession() throws Exception {
        var held = new HeldTurn(Turn.text("late"));
        api.upstream.enqueue(held);
        var id = api.started("{\"input\":\"hi\"}");
        held.awaitArrival();
        try {
            var view = api.awaitStatus(id, "running");
            assertEquals(id, view.path("session_id").asText(), "no session id given: the host uses the run id");
            assertEquals("hermes-agent", view.path("model").asText());
            assertEquals("admin", view.path("owner").asText());
            assertFalse(view.has("output"));
            assertFalse(view.has("usage"));
        } finally {
            held.release();
        }
        api.awaitStatus(id, "completed");
    }
}
