package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsFixture.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListTest {
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00.114Z");
    final RunsFixture api = new RunsFixture();

    private void seed(int n) {
        for (int i = 0; i < n; i++) {
            var status = i % 3 == 0 ? RunStatus.COMPLETED : i % 3 == 1 ? RunStatus.RUNNING : RunStatus.WAITING_FOR_APPROVAL;
            api.runs.put(new RunRecord("run_%02d".formatted(i), status, T0.plusMillis(i * 1000L), T0, "s" + (i % 2),
                    "hermes-agent", i == 4 ? "a1b2c3d4e5f6" : null, 0, null, null, null, null, null, null, "admin"));
        }
    }

    private static List<String> ids(JsonNode page) {
        var ids = new ArrayList<String>();
        page.get("data").forEach(run -> ids.add(run.get("run_id").asText()));
        return ids;
    }

    @Test
    void newestFirstWithTheDefaultLimitOf20() throws Exception {
        seed(25);
        var ex = api.list();
        assertEquals(200, ex.status());
        var page = ex.responseBody();
        assertEquals("list", page.get("object").asText());
        assertEquals(20, page.get("data").size());
        assertEquals("run_24", ids(page).getFirst());
        assertEquals("hermes.run", page.get("data").get(0).get("object").asText());
        assertTrue(page.get("has_more").asBoolean());
        assertEquals(20, api.runs.queries().getLast().limit());
    }

    @Test
    void theNextCursorWalksEveryRunOnceAndEndsWithNull() throws Exception {
        seed(7);
        var seen = new ArrayList<String>();
        String cursor = null;
        do {
            var page = cursor == null ? api.list("limit", "3").responseBody()
                    : api.list("limit", "3", "cursor", cursor).responseBody();
            seen.addAll(ids(page));
            cursor = page.get("next_cursor").isNull() ? null : page.get("next_cursor").asText();
            assertEquals(cursor != null, page.get("has_more").asBoolean());
        } while (cursor != null);
        assertEquals(List.of("run_06", "run_05", "run_04", "run_03", "run_02", "run_01", "run_00"), seen);
        var second = api.runs.queries().get(1);
        assertEquals(T0.plusMillis(4000), second.beforeCreatedAt());
        assertEquals("run_04", second.beforeRunId());
    }

    @Test
    void filtersByStatusAsCommaListOrRepeated() throws Exception {
        seed(6);
        var comma = api.list("status", "running, waiting_for_approval");
        assertEquals(List.of("run_05", "run_04", "run_02", "run_01"), ids(comma.responseBody()));
        assertEquals(EnumSet.of(RunStatus.RUNNING, RunStatus.WAITING_FOR_APPROVAL), api.runs.queries().getLast().statuses());
        api.list("status", "completed", "status", "RUNNING,");
        assertEquals(EnumSet.of(RunStatus.COMPLETED, RunStatus.RUNNING), api.runs.queries().getLast().statuses());
        api.list("status", "");
        assertEquals(Set.of(), api.runs.queries().getLast().statuses());
    }

    @Test
    void filtersBySessionAndJob() throws Exception {
        seed(6);
        assertEquals(List.of("run_05", "run_03", "run_01"), ids(api.list("session_id", "s1").responseBody()));
        assertEquals(List.of("run_04"), ids(api.list("job_id", "a1b2c3d4e5f6").responseBody()));
        var query = api.runs.queries().getLast();
        assertEquals("a1b2c3d4e5f6", query.jobId());
        assertNull(query.sessionId());
    }

    @Test
    void anEmptyListHasNoCursor() throws Exception {
        var page = api.list().responseBody();
        assertEquals("{\"object\":\"list\",\"data\":[],\"has_more\":false,\"next_cursor\":null}", page.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"done", "running,bogus", "started"})
    void aBadStatusIs400(String status) throws Exception {
        assertError(api.list("status", status), 400, "invalid_status_filter", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "101", "-1", "abc", "2.5", "", "1000"})
    void aBadLimitIs400(String limit) throws Exception {
        assertError(api.list("limit", limit), 400, "invalid_limit", null);
    }

    @Test
    void limitsAtTheEdgesAreFine() throws Exception {
        assertEquals(200, api.list("limit", "1").status());
        assertEquals(200, api.list("limit", "100").status());
        assertEquals(100, api.runs.queries().getLast().limit());
    }

    @Test
    void aBadCursorIs400() throws Exception {
        assertError(api.list("cursor", "not-a-cursor"), 400, "invalid_cursor", "Invalid cursor: not-a-cursor");
        assertTrue(api.runs.queries().isEmpty());
    }
}
