package dev.caduceus.plugin.responses;

import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.CREATED;
import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.JSON;
import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.envelope;
import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.id;
import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.ids;
import static dev.caduceus.plugin.responses.ResponseStoreUnitTest.turn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.FakeExchange;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.ManualScheduler;
import dev.caduceus.platform.testkit.RecordingEventStream;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on one PostgreSQL database, each with its own pool and store: a chain continued through
 * both reads back whole from either, the creation and access ticks stay one order across nodes (they
 * are taken inside each write), a node's start and its periodic recovery leave another node's live
 * stream alone until that node stops renewing its lease, and a replay on one node follows a stream
 * the other is still writing.
 */
@Timeout(120)
class ResponsesClusterTest {
    @TempDir Path dir;
    final ManualClock clock = new ManualClock(Instant.ofEpochSecond(CREATED));
    TestDatabase one;
    TestDatabase two;
    ResponseStore storeOne;
    ResponseStore storeTwo;

    @BeforeEach
    void open() {
        one = TestDatabase.open(dir, "endpoint-responses", Dialect.POSTGRESQL);
        two = one.node();
        storeOne = new ResponseStore(one, JSON, 1000, clock);
        storeTwo = new ResponseStore(two, JSON, 1000, clock);
    }

    @AfterEach
    void close() {
        two.close();
        one.close();
    }

    @Test
    void aChainSavedAlternatelyThroughTwoNodesIsWholeOnEither() {
        StoredResponse previous = null;
        var expected = new StringBuilder();
        for (int i = 1; i <= 8; i++) {
            var store = i % 2 == 1 ? storeOne : storeTwo;
            previous = turn(store, id(i), "bob", previous, "q" + i, "a" + i, "talk");
            expected.append("user:q").append(i).append("|assistant:a").append(i).append('|');
        }
        for (var store : List.of(storeOne, storeTwo)) {
            var last = store.find(id(8), Caller.tenant("bob")).orElseThrow();
            assertEquals(expected.toString(), ResponsesHost.texts(store.history(last, Integer.MAX_VALUE).orElseThrow()));
            assertEquals(java.util.Optional.of(id(8)), store.conversation("bob", "talk"));
        }
        var newestFirst = new ArrayList<String>();
        for (int i = 8; i >= 1; i--) newestFirst.add(id(i));
        for (var db : List.of(one, two)) {
            var catalog = new ResponseCatalog(db);
            assertEquals(newestFirst, ids(catalog.page("bob", null, null, null, 100)));
            assertEquals(newestFirst, ids(catalog.page(null, "talk", "bob", null, 100)), "the conversation's chain");
            assertEquals(8, catalog.conversations("bob", 10).getFirst().turns());
        }
        var seqs = one.read(sql -> sql.query("SELECT created_seq FROM responses ORDER BY id", r -> r.getLong(1)));
        for (int i = 1; i < seqs.size(); i++) assertTrue(seqs.get(i) > seqs.get(i - 1), "created in save order: " + seqs);
    }

    @Test
    void concurrentSavesOnTwoNodesGetDistinctTicks() throws Exception {
        int perNode = 20;
        var go = new CountDownLatch(1);
        var failures = new ConcurrentLinkedQueue<Throwable>();
        var threads = new ArrayList<Thread>();
        for (int n = 0; n < 2; n++) {
            var store = n == 0 ? storeOne : storeTwo;
            for (int t = 0; t < 4; t++) {
                int base = 1 + (n * 4 + t) * perNode / 4;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                        for (int i = base; i < base + perNode / 4; i++) {
                            turn(store, id(i), "admin", null, "q", "a", null);
                            store.find(id(base), Caller.ADMIN_CALLER); // an access tick too, racing the saves
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
        var created = one.read(sql -> sql.query("SELECT created_seq FROM responses", r -> r.getLong(1)));
        var accessed = one.read(sql -> sql.query("SELECT accessed_at FROM responses", r -> r.getLong(1)));
        assertEquals(2 * perNode, created.size());
        assertEquals(created.size(), new HashSet<>(created).size(), "no two responses share a creation tick");
        assertEquals(accessed.size(), new HashSet<>(accessed).size(), "nor an access tick");
        var listedOnOne = ids(new ResponseCatalog(one).page(null, null, null, null, 100));
        assertEquals(listedOnOne, ids(new ResponseCatalog(two).page(null, null, null, null, 100)));
    }

    @Test
    void aNodesStartLeavesAnotherNodesLiveStreamUntilItsLeaseRunsOut() {
        var id = id(1);
        saveInProgress(storeOne, id); // node one streams it
        var scheduler = new ManualScheduler();
        var ctx = FakePlatformContext.builder("endpoint-responses").database(two).clock(clock).scheduler(scheduler).build();
        var plugin = new ResponsesPlugin();
        plugin.start(ctx); // node two starts: its boot recovery must not end node one's stream
        plugin.endpoints(ctx);
        assertEquals("in_progress", status(id));

        clock.advance(Duration.ofSeconds(45));
        storeOne.renewStreams(List.of(id), clock.instant()); // node one's renewal task
        clock.advance(Duration.ofSeconds(45));
        scheduler.runAll(); // node two's periodic recovery, 90 s after the save
        assertEquals("in_progress", status(id), "renewed 45 s ago");

        clock.advance(ResponseStore.STREAM_LEASE); // node one died: nobody renews
        scheduler.runAll();
        assertEquals("incomplete", status(id), "node two ends what the dead node left in_progress");
    }

    @Test
    void aReplayOnOneNodeFollowsAStreamTheOtherIsStillWriting() throws Exception {
        var id = id(1);
        saveInProgress(storeOne, id);
        storeOne.append(id, 0, "response.created", frame("response.created", 0));
        var ctx = FakePlatformContext.builder("endpoint-responses").database(two).clock(clock).build();
        var plugin = new ResponsesPlugin();
        plugin.start(ctx);
        var retrieve = handler(plugin, ctx, "GET /v1/responses/{response_id}");
        var out = new RecordingEventStream();
        var failure = new AtomicReference<Throwable>();
        var replay = Thread.ofVirtual().start(() -> {
            try {
                new FakeExchange(ctx.json(), "GET", "/v1/responses/" + id).pathParam("response_id", id)
                        .queryParam("stream", "true").eventStream(out).call(retrieve);
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        Eventually.await(Duration.ofSeconds(30), "the replay sent the first frame", () -> !out.frames().isEmpty());
        assertFalse(out.closed(), "node one still streams it: the replay waits for more");
        storeOne.append(id, 1, "response.output_text.delta", frame("response.output_text.delta", 1));
        storeOne.append(id, 2, "response.completed", frame("response.completed", 2));
        store(storeOne, id, envelope(id, "completed", "done"), List.of(Message.user("q"), Message.assistant("done")));
        replay.join(Duration.ofSeconds(30).toMillis());
        assertFalse(replay.isAlive());
        assertEquals(null, failure.get());
        assertEquals(List.of("response.created", "response.output_text.delta", "response.completed"),
                out.frames().stream().filter(f -> f.kind().equals("event")).map(RecordingEventStream.Frame::name).toList());
    }

    private static String frame(String type, int seq) {
        return "{\"type\":\"" + type + "\",\"sequence_number\":" + seq + "}";
    }

    private static void saveInProgress(ResponseStore store, String id) {
        store(store, id, envelope(id, "in_progress", ""), List.of(Message.user("q")));
    }

    private static void store(ResponseStore store, String id, com.fasterxml.jackson.databind.node.ObjectNode envelope,
                              List<Message> own) {
        store.save(new StoredResponse(id, "admin", envelope, null, "sess", true, CREATED, null, null),
                new TranscriptWrite(null, List.of(), own, 1), null);
    }

    private String status(String id) {
        return storeOne.find(id, Caller.ADMIN_CALLER).orElseThrow().status();
    }

    private static HttpHandler handler(ResponsesPlugin plugin, FakePlatformContext ctx, String route) {
        var found = new AtomicReference<HttpHandler>();
        plugin.endpoints(ctx).getFirst().routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                if ((method + " " + template).equals(route)) found.set(h);
                return this;
            }
        });
        return found.get();
    }
}
