package dev.caduceus.plugin.runs;

import static dev.caduceus.plugin.runs.RunsHost.assertError;
import static dev.caduceus.plugin.runs.RunsHost.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code GET /v1/runs} over the real journal; each test lists its own session. */
class ListTest {
    static RunsHost api;

    @BeforeAll
    static void start() {
        api = RunsHost.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** {@code n} completed runs in {@code session}, oldest first. */
    private static List<String> completed(String session, int n) throws InterruptedException {
        var ids = new ArrayList<String>();
        for (int i = 0; i < n; i++) {
            var id = api.started("{\"input\":\"hi\",\"session_id\":\"" + session + "\"}");
            api.awaitStatus(id, "completed");
            ids.add(id);
        }
        return ids;
    }

    @Test
    void newestFirstWithTheDefaultLimitOf20() throws Exception {
        var ids = completed("list-default", 21);
        var ex = api.list("session_id=list-default");
        assertEquals(200, ex.status());
        var page = ex.json();
        assertEquals("list", page.path("object").asText());
        assertEquals(20, page.path("data").size());
        assertEquals(ids.getLast(), ids(page).getFirst());
        assertEquals("hermes.run", page.path("data").get(0).path("object").asText());
        assertTrue(page.path("has_more").asBoolean());
    }

    @Test
    void theNextCursorWalksEveryRunOnceAndEndsWithNull() throws Exception {
        var ids = completed("list-walk", 7);
        var seen = new ArrayList<String>();
        String cursor = null;
        do {
            var page = api.list("session_id=list-walk&limit=3" + (cursor == null ? "" : "&cursor=" + cursor)).json();
            seen.addAll(ids(page));
            cursor = page.path("next_cursor").isNull() ? null : page.path("next_cursor").asText();
            assertEquals(cursor != null, page.path("has_more").asBoolean());
        } while (cursor != null);
        assertEquals(ids.reversed(), seen);
    }

    @Test
    void filtersByStatusAsCommaListOrRepeated() throws Exception {
        var done = completed("list-status", 1).getFirst();
        api.upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal", "{\"command\":\"rm -rf build-x\"}")));
        var waiting = api.started("{\"input\":\"hi\",\"session_id\":\"list-status\"}");
        api.awaitStatus(waiting, "waiting_for_approval");
        var held = new HeldTurn(Turn.text("late"));
        api.upstream.enqueue(held);
        var running = api.started("{\"input\":\"hi\",\"session_id\":\"list-status\"}");
        held.awaitArrival();
        try {
            api.awaitStatus(running, "running");
            assertEquals(List.of(running, waiting),
                    ids(api.list("session_id=list-status&status=running,%20waiting_for_approval").json()));
            assertEquals(List.of(running, done),
                    ids(api.list("session_id=list-status&status=completed&status=RUNNING,").json()));
            assertEquals(List.of(running, waiting, done), ids(api.list("session_id=list-status&status=").json()));
        } finally {
            held.release();
            api.approval(waiting, "{\"choice\":\"deny\"}");
        }
        api.awaitStatus(running, "completed");
        api.awaitStatus(waiting, "completed");
    }

    @Test
    void filtersBySessionAndJob() throws Exception {
        var one = completed("list-s1", 2);
        completed("list-s2", 1);
        assertEquals(one.reversed(), ids(api.list("session_id=list-s1").json()));
        var noJob = api.list("job_id=a1b2c3d4e5f6");
        assertEquals(200, noJob.status(), noJob.body());
        assertEquals(List.of(), ids(noJob.json()), "no run belongs to that job");
        var noOrigin = api.list("origin=job:a1b2c3d4e5f6");
        assertEquals(200, noOrigin.status(), noOrigin.body());
        assertEquals(List.of(), ids(noOrigin.json()));
        var both = api.list("job_id=a1b2c3d4e5f6&origin=job:a1b2c3d4e5f6");
        assertEquals(400, both.status(), both.body());
        assertTrue(both.body().contains("invalid_origin_filter"), both.body());
    }

    @Test
    void anEmptyListHasNoCursor() {
        assertEquals("{\"object\":\"list\",\"data\":[],\"has_more\":false,\"next_cursor\":null}",
                api.list("session_id=list-nobody").body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"done", "running,bogus", "started"})
    void aBadStatusIs400(String status) {
        assertError(api.list("status=" + status), 400, "invalid_status_filter", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "101", "-1", "abc", "2.5", "", "1000"})
    void aBadLimitIs400(String limit) {
        assertError(api.list("limit=" + limit), 400, "invalid_limit", null);
    }

    @Test
    void limitsAtTheEdgesAreFine() throws Exception {
        var ids = completed("list-edges", 2);
        assertEquals(List.of(ids.getLast()), ids(api.list("session_id=list-edges&limit=1").json()));
        assertEquals(ids.reversed(), ids(api.list("session_id=list-edges&limit=100").json()));
    }

    @Test
    void aBadCursorIs400() {
        assertError(api.list("cursor=not-a-cursor"), 400, "invalid_cursor", "Invalid cursor: not-a-cursor");
    }
}
