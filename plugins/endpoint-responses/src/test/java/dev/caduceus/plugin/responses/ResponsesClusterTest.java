package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.SseStream;
import dev.caduceus.platform.testkit.TestDatabase;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two real hosts on one PostgreSQL database ({@link ResponsesHost} with {@code CADUCEUS__DATABASE__URL}:
 * each its own pool, store, scheduler, run service and model): a chain continued through both reads back
 * whole from either, the creation and access ticks stay one order across nodes (they are taken inside each
 * write), a replay on one node follows a stream the other is still writing, and a node's start and its
 * periodic recovery leave another node's live stream alone until that node's lease runs out. The first
 * three share two hosts (each works on responses of its own); the lease test boots two of its own, on
 * manual clocks.
 */
@Timeout(120)
class ResponsesClusterTest {
    static final String DATABASE_URL = "CADUCEUS__DATABASE__URL";
    static final Instant T0 = Instant.parse("2026-01-15T09:00:00Z");
    /** The plugin's periodic task that renews this node's stream leases and ends the ones run out. */
    static final String STREAMS_TICK = "endpoint-responses/response-streams";

    static TestPostgres.Db pg;
    static ResponsesHost one;
    static ResponsesHost two;
    static TestDatabase db;

    @BeforeAll
    static void boot() {
        pg = TestPostgres.shared().newDatabase();
        one = ResponsesHost.start(b -> b.env(DATABASE_URL, pg.url()));
        two = ResponsesHost.start(b -> b.env(DATABASE_URL, pg.url()));
        db = TestDatabase.attach(pg, "endpoint-responses");
    }

    @AfterAll
    static void shutDown() {
        for (AutoCloseable c : new AutoCloseable[] {db, two, one}) {
            try {
                if (c != null) c.close();
            } catch (Exception ignored) {
                // the next one still closes
            }
        }
    }

    @BeforeEach
    void reset() {
        one.reset();
        two.reset();
    }

    /**
     * Key bob's chain. The keys are added once, in the database both nodes read; a node notices a key
     * added within the second of its last look at the key table a second later, hence the waits.
     */
    @Test
    void aChainContinuedAlternatelyOnTwoNodesIsWholeOnEither() throws Exception {
        var key = one.host.addKey("bob");
        var bobOne = one.as(key);
        var bobTwo = two.as(key);
        var carol = one.as(one.host.addKey("carol"));
        for (var client : List.of(bobOne, bobTwo, carol))
            Eventually.await(Duration.ofSeconds(10), "the node knows the key",
                    () -> client.http().get(ResponsesHost.PATH + "?limit=1").status() == 200);
        var ids = new ArrayList<String>();
        var expected = new StringBuilder();
        for (int i = 1; i <= 8; i++) {
            var node = i % 2 == 1 ? bobOne : bobTwo; // each continues what the other saved last
            node.answers("a" + i);
            ids.add(node.create("{\"input\":\"q" + i + "\",\"conversation\":\"talk\"}"));
            expected.append("user:q").append(i).append('|');
            if (i < 8) expected.append("assistant:a").append(i).append('|');
        }
        assertEquals(expected.toString(), two.lastModelTexts(), "the eighth turn's model saw the whole chain");
        var newestFirst = new ArrayList<>(ids.reversed());
        for (var node : List.of(bobOne, bobTwo)) {
            var items = node.inputItems(ids.getLast(), "order", "asc", "limit", "100");
            assertEquals(200, items.status(), items.body());
            assertEquals(expected.toString(), texts(items.json().path("data")));
            assertEquals(newestFirst, listed(node, "limit=100"), "bob's responses");
            assertEquals(newestFirst, listed(node, "conversation=talk&limit=100"), "the conversation's chain");
            var talk = conversation(node, "talk");
            assertEquals(ids.getLast(), talk.path("response_id").asText(), talk.toString());
            assertEquals(8, talk.path("turns").asInt(), talk.toString());
            assertEquals("bob", talk.path("owner").asText(), talk.toString());
        }
        assertEquals(List.of(), listed(carol, "conversation=talk"), "names are per key");
        var seqs = new ArrayList<Long>();
        for (var id : ids) seqs.add(db.read(sql -> sql.queryOne("SELECT created_seq FROM responses WHERE id = ?",
                r -> r.getLong(1), id)).orElseThrow());
        for (int i = 1; i < seqs.size(); i++) assertTrue(seqs.get(i) > seqs.get(i - 1), "created in save order: " + seqs);
    }

    @Test
    void concurrentSavesOnTwoNodesGetDistinctTicks() throws Exception {
        one.upstream.setDefault(Turn.text("ok"));
        two.upstream.setDefault(Turn.text("ok"));
        int perThread = 5;
        var go = new CountDownLatch(1);
        var failures = new ConcurrentLinkedQueue<Throwable>();
        var created = new CopyOnWriteArrayList<String>();
        var threads = new ArrayList<Thread>();
        for (var node : List.of(one, two)) {
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                        String first = null;
                        for (int i = 0; i < perThread; i++) {
                            var id = node.create("{\"input\":\"q\"}");
                            created.add(id);
                            if (first == null) first = id;
                            assertEquals(200, node.get(first).status()); // an access tick too, racing the saves
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
        }
        go.countDown();
        for (var t : threads) t.join();
        assertEquals(List.of(), List.copyOf(failures));
        assertEquals(2 * 4 * perThread, new HashSet<>(created).size());
        var createdTicks = new ArrayList<Long>();
        var accessTicks = new ArrayList<Long>();
        for (var id : created) {
            db.read(sql -> sql.queryOne("SELECT created_seq, accessed_at FROM responses WHERE id = ?",
                    r -> List.of(r.getLong(1), r.getLong(2)), id)).ifPresent(ticks -> {
                createdTicks.add(ticks.get(0));
                accessTicks.add(ticks.get(1));
            });
        }
        assertEquals(created.size(), createdTicks.size(), "every response is stored");
        assertEquals(createdTicks.size(), new HashSet<>(createdTicks).size(), "no two responses share a creation tick");
        assertEquals(accessTicks.size(), new HashSet<>(accessTicks).size(), "nor an access tick");
        assertEquals(listed(one, "limit=100"), listed(two, "limit=100"), "both nodes list one order");
    }

    /**
     * Node one streams a response, its model held after the first text; node two's replay of it sends
     * what node one journaled so far and then follows, so it ends with what node one wrote after the
     * replay began: every event of node one's own stream, in order.
     */
    @Test
    void aReplayOnOneNodeFollowsAStreamTheOtherIsStillWriting() throws Exception {
        var held = new HeldTurn(Turn.text("done"));
        one.upstream.enqueue(Turn.textChunks("partial").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
        one.upstream.enqueue(held);
        try (var streaming = one.postStream("{\"input\":\"long work\",\"stream\":true}")) {
            var written = new ArrayList<>(streaming.until("response.output_text.delta"));
            var id = written.getFirst().data().get("response").get("id").asText();
            held.awaitArrival(); // node one waits for its model: the stream stays in_progress
            try (var replay = two.http().sse(ResponsesHost.PATH + "/" + id + "?stream=true")) {
                assertEquals(200, replay.status(), () -> replay.body()); // the body only if it is not the stream
                var replayed = new ArrayList<>(replay.until("response.output_text.delta"));
                held.release(); // only now does node one write the rest
                written.addAll(streaming.rest());
                replayed.addAll(replay.rest());
                assertEquals("response.completed", written.getLast().event());
                assertEquals(ResponsesHost.names(written), ResponsesHost.names(replayed));
                assertEquals(ResponsesHost.data(written), ResponsesHost.data(replayed), "the same frames");
            }
        } finally {
            held.release();
        }
    }

    /**
     * Items added to one conversation object from both nodes at once (20 requests each, all started together) are
     * all kept, each once. (The appends take the conversation's row lock so that two transactions cannot number an
     * item alike; this run does not always make them overlap, so it shows the outcome, not the race.)
     */
    @Test
    void itemsAddedToOneConversationFromBothNodesAtOnceAreAllKept() throws Exception {
        var id = one.http().post("/v1/conversations", "{}").json().get("id").asText();
        var start = new CountDownLatch(1);
        var statuses = new ConcurrentLinkedQueue<Integer>();
        var threads = new ArrayList<Thread>();
        for (int i = 0; i < 40; i++) {
            var node = i % 2 == 0 ? one : two;
            var body = "{\"items\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"m" + i + "\"}]}";
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    statuses.add(node.http().post("/v1/conversations/" + id + "/items", body).status());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        start.countDown();
        for (var t : threads) t.join();
        assertEquals(40, statuses.stream().filter(s -> s == 200).count(), statuses.toString());
        var items = two.http().get("/v1/conversations/" + id + "/items?limit=100&order=asc").json().get("data");
        var texts = new HashSet<String>();
        items.forEach(item -> texts.add(item.get("content").get(0).get("text").asText()));
        assertEquals(40, items.size());
        assertEquals(40, texts.size(), "each once");
    }

    /**
     * A background response node one runs (its model held) is read, followed and cancelled from node two: the
     * stream node two serves resumes after the last event the client saw and follows node one's writes; the cancel
     * asked on node two is a mark node one picks up, and node two answers the response once it is cancelled.
     */
    @Test
    void aBackgroundResponseIsFollowedAndCancelledFromTheOtherNode() throws Exception {
        var first = new HeldTurn(Turn.textChunks("one ", "two").usage(1, 1));
        one.upstream.enqueue(Turn.textChunks("Looking.").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
        one.upstream.enqueue(first);
        try {
            var created = one.post("{\"input\":\"long work\",\"background\":true}").json();
            var id = created.get("id").asText();
            first.awaitArrival(); // node one waits for its model, after the tool step
            // The run starts before its stream saves in_progress, so a fast run can reach its model first.
            Eventually.await(Duration.ofSeconds(10), id + " in_progress on node two", () -> two.get(id).json(),
                    r -> r.get("status").asText().equals("in_progress"));
            List<SseStream.Frame> seen;
            try (var sse = two.http().sse(ResponsesHost.PATH + "/" + id + "?stream=true")) {
                seen = sse.until("response.output_item.done");
            } // the client drops its stream on node two
            long cursor = seen.getLast().data().get("sequence_number").asLong();
            try (var resumed = two.http().sse(ResponsesHost.PATH + "/" + id + "?stream=true&starting_after=" + cursor)) {
                first.release(); // node one writes the rest only now
                var rest = resumed.rest();
                assertEquals(cursor + 1, rest.getFirst().data().get("sequence_number").asLong());
                assertEquals("response.completed", rest.getLast().event());
                var all = new ArrayList<>(seen);
                all.addAll(rest);
                assertEquals(ResponsesHost.data(one.replay(id, "stream", "true")), ResponsesHost.data(all),
                        "nothing lost, nothing twice");
            }

            var held = new HeldTurn(Turn.text("never"));
            one.upstream.enqueue(held);
            var second = one.post("{\"input\":\"more work\",\"background\":true}").json().get("id").asText();
            held.awaitArrival();
            var cancelled = two.http().post(ResponsesHost.PATH + "/" + second + "/cancel", "");
            assertEquals(200, cancelled.status(), cancelled.body());
            assertEquals("cancelled", cancelled.json().get("status").asText(), "answered once node one stopped it");
            assertEquals("cancelled", one.get(second).json().get("status").asText());
            held.release();
        } finally {
            first.release();
        }
    }

    /**
     * On a database of its own, two hosts on manual clocks, so that leases run out when the test says.
     * Node one streams a response (its model held): saved {@code in_progress} with a 60 s lease, renewed
     * every 15 s of real time from node one's clock. Node two's start leaves it; 90 s after the save, with
     * node one's renewal 45 s before, node two's periodic recovery leaves it too (seen ending a planted
     * response whose lease did run out, in the same pass); once node one's lease is past on node two's
     * clock (node one's clock stands still, so its renewals no longer move the lease, as when it stopped
     * renewing), node two's recovery ends it.
     */
    @Test
    void aNodesStartAndRecoveryLeaveAnotherNodesLiveStreamUntilItsLeaseRunsOut() throws Exception {
        var shared = TestPostgres.shared().newDatabase();
        var clockOne = new ManualClock(T0);
        var clockTwo = new ManualClock(T0);
        var held = new HeldTurn(Turn.text("too late"));
        try (var nodeOne = ResponsesHost.start(b -> b.clock(clockOne).env(DATABASE_URL, shared.url()));
             var rows = TestDatabase.attach(shared, "endpoint-responses")) {
            nodeOne.answers("done");
            var abandoned = nodeOne.create("{\"input\":\"earlier\"}"); // becomes a dead node's response below
            nodeOne.upstream.enqueue(Turn.textChunks("partial").withToolCalls(Turn.ToolCall.of("call_1", "terminal", "{}")));
            nodeOne.upstream.enqueue(held);
            try (var streaming = nodeOne.postStream("{\"input\":\"long work\",\"stream\":true}")) {
                var live = streaming.until("response.output_text.delta").getFirst().data().get("response").get("id").asText();
                held.awaitArrival();
                assertEquals(T0.plus(ResponseStore.STREAM_LEASE).toEpochMilli(), lease(rows, live));

                try (var nodeTwo = ResponsesHost.start(b -> b.clock(clockTwo).env(DATABASE_URL, shared.url()))) {
                    assertEquals("in_progress", status(nodeTwo, live), "node two's start leaves node one's stream");

                    clockOne.advance(Duration.ofSeconds(45));
                    long renewed = T0.plusSeconds(45).plus(ResponseStore.STREAM_LEASE).toEpochMilli();
                    nodeOne.host.runScheduledTask(STREAMS_TICK);
                    assertEquals(renewed, lease(rows, live), "node one's tick renews its lease");

                    clockTwo.set(T0.plusSeconds(90));
                    plantInProgress(rows, nodeOne, abandoned, T0.plusSeconds(89)); // run out on node two's clock only
                    nodeTwo.host.runScheduledTask(STREAMS_TICK);
                    assertEquals("incomplete", status(nodeTwo, abandoned), "node two's periodic recovery ends the abandoned one");
                    assertEquals("in_progress", status(nodeTwo, live), "renewed 45 s ago: the same pass left it");

                    clockTwo.set(Instant.ofEpochMilli(renewed).plusSeconds(1));
                    nodeTwo.host.runScheduledTask(STREAMS_TICK);
                    assertEquals("incomplete", status(nodeTwo, live), "node two ends what node one no longer vouches for");
                    assertEquals("incomplete", status(nodeOne, live), "one store: node one reads it so too");
                }
            } finally {
                held.release();
            }
        }
    }

    /** {@code id}'s stream lease, epoch milliseconds ({@code 0}: none). */
    private static long lease(TestDatabase rows, String id) {
        return rows.read(sql -> sql.queryOne("SELECT streaming_until FROM responses WHERE id = ?",
                r -> r.getObject(1) == null ? 0L : r.getLong(1), id)).orElseThrow();
    }

    /** Rewrites finished response {@code id} as a node that died mid-stream leaves it: in_progress, its lease ending at {@code until}. */
    private static void plantInProgress(TestDatabase rows, ResponsesHost node, String id, Instant until) {
        var envelope = (com.fasterxml.jackson.databind.node.ObjectNode) node.get(id).json();
        envelope.put("status", "in_progress");
        int updated = rows.write(sql -> sql.update(
                "UPDATE responses SET envelope = ?, status = 'in_progress', streaming_until = ? WHERE id = ?",
                envelope.toString(), until.toEpochMilli(), id));
        assertEquals(1, updated);
    }

    private static String status(ResponsesHost node, String id) {
        var answer = node.get(id);
        assertEquals(200, answer.status(), answer.body());
        return answer.json().path("status").asText();
    }

    /** {@code GET /v1/responses?query}: the ids, as listed. */
    private static List<String> listed(ResponsesHost node, String query) {
        var answer = node.http().get(ResponsesHost.PATH + "?" + query);
        assertEquals(200, answer.status(), answer.body());
        var ids = new ArrayList<String>();
        answer.json().path("data").forEach(r -> ids.add(r.path("id").asText()));
        return ids;
    }

    /** The {@code GET /api/conversations} entry of {@code name}. */
    private static JsonNode conversation(ResponsesHost node, String name) {
        var answer = node.http().get("/api/conversations");
        assertEquals(200, answer.status(), answer.body());
        for (var c : answer.json().path("conversations")) if (c.path("name").asText().equals(name)) return c;
        throw new AssertionError(name + " is not listed: " + answer.body());
    }

    /** {@code role:text|…} of input items. */
    private static String texts(JsonNode items) {
        var sb = new StringBuilder();
        for (var item : items) sb.append(item.path("role").asText()).append(':')
                .append(item.path("content").path(0).path("text").asText()).append('|');
        return sb.toString();
    }
}
