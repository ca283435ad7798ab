package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ResponseStore} and {@link ResponseCatalog} alone on a real database with the plugin's
 * migrations, on SQLite and on PostgreSQL: every statement the store runs (chains, branches, names,
 * lists, eviction, recovery, journal retention), without a run. The HTTP behaviour is
 * {@link ResponseStoreTest}'s, on the real host.
 */
@ParameterizedClass
@EnumSource(Dialect.class)
class ResponseStoreUnitTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long CREATED = 1768467600L; // 2026-01-15T09:00:00Z
    static final Caller BOB = Caller.tenant("bob");

    @TempDir Path dir;
    @Parameter Dialect dialect;
    final ManualClock clock = new ManualClock(Instant.ofEpochSecond(CREATED));
    TestDatabase db;
    ResponseStore store;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses", dialect);
        store = new ResponseStore(db, JSON, 10, clock);
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    static String id(int n) {
        return String.format("resp_%032d", n);
    }

    static ObjectNode envelope(String id, String status, String answer) {
        var envelope = JSON.createObjectNode().put("id", id).put("object", "response").put("status", status)
                .put("model", "m");
        var message = envelope.putArray("output").addObject().put("type", "message").put("status", status);
        message.putArray("content").addObject().put("type", "output_text").put("text", answer);
        return envelope;
    }

    /** Saves one turn of {@code owner}: {@code input} answered with {@code answer}, continuing {@code parent} (or not). */
    static StoredResponse turn(ResponseStore store, String id, String owner, StoredResponse parent, String input,
                               String answer, String conversation) {
        var response = new StoredResponse(id, owner, envelope(id, "completed", answer), null, "sess", false, CREATED,
                null, parent == null ? null : parent.id());
        store.save(response, new TranscriptWrite(parent == null ? null : parent.position(), List.of(),
                List.of(Message.user(input), Message.assistant(answer)), 1), conversation);
        return store.find(id, Caller.ADMIN_CALLER).orElseThrow();
    }

    String history(StoredResponse response) {
        return ResponsesHost.texts(store.history(response, Integer.MAX_VALUE).orElseThrow());
    }

    /** Saves a streamed, completed response with a two-frame journal, as a streamed create leaves it. */
    private String saveStreamed(String id) {
        var envelope = JSON.createObjectNode().put("id", id).put("object", "response").put("status", "completed");
        store.save(new StoredResponse(id, Caller.ADMIN, envelope, null, "sess", true, CREATED, null, null),
                new TranscriptWrite(null, List.of(), List.of(Message.user("a"), Message.assistant("ok")), 1), null);
        store.append(id, 0, "response.created", "{\"type\":\"response.created\"}");
        store.append(id, 1, "response.completed", "{\"type\":\"response.completed\"}");
        return id;
    }

    @Test
    void journalsOlderThanTheRetentionArePrunedButTheResponseStays() {
        var id = saveStreamed(id(1));
        store.append(id, 1, "response.completed", "{\"type\":\"again\"}"); // a frame written twice is kept once
        assertEquals(2, store.frames(id, -1).size());
        assertEquals(List.of(1L), store.frames(id, 0).stream().map(ResponseStore.Frame::seq).toList());
        assertEquals(Optional.of(1L), store.lastSeq(id));
        assertEquals(0, store.pruneJournals(CREATED), "not older than the cutoff yet");
        assertEquals(2, store.pruneJournals(CREATED + 1));
        assertTrue(store.frames(id, -1).isEmpty());
        assertTrue(store.lastSeq(id).isEmpty());
        var kept = store.find(id, Caller.ADMIN_CALLER).orElseThrow();
        assertEquals("completed", kept.status());
        assertEquals("user:a|assistant:ok|", history(kept));
    }

    @Test
    void aGroupOfFramesIsJournaledInOneWriteInOrderAndARepeatedOneIsKeptOnce() {
        var id = saveStreamed(id(1));
        int n = dev.caduceus.support.sql.MultiRowInsert.MAX_ROWS + 21; // more than one statement's worth
        var group = new java.util.ArrayList<ResponseStore.Frame>();
        for (int i = 0; i < n; i++) group.add(new ResponseStore.Frame(2 + i, "response.output_text.delta", "{\"i\":" + i + "}"));
        group.add(new ResponseStore.Frame(1, "response.completed", "{\"type\":\"again\"}"));
        store.append(id, group);
        var frames = store.frames(id, -1);
        assertEquals(java.util.stream.LongStream.range(0, n + 2).boxed().toList(),
                frames.stream().map(ResponseStore.Frame::seq).toList());
        assertEquals("{\"i\":" + (n - 1) + "}", frames.getLast().json());
        assertTrue(!frames.get(1).json().contains("again"), "the frame journaled first stays");
    }

    @Test
    void aChainAppendsInPlaceAndABranchForksItsOwnChain() {
        var first = turn(store, id(1), "admin", null, "q1", "a1", null);
        var second = turn(store, id(2), "admin", first, "q2", "a2", null);
        assertEquals(first.position().chainId(), second.position().chainId(), "continued in place");
        assertEquals(4, second.position().lastSeq());
        var branch = turn(store, id(3), "admin", first, "other", "b1", null);
        assertNotEquals(first.position().chainId(), branch.position().chainId(), "a branch copies its base");
        assertEquals("user:q1|assistant:a1|", history(first));
        assertEquals("user:q1|assistant:a1|user:q2|assistant:a2|", history(second));
        assertEquals("user:q1|assistant:a1|user:other|assistant:b1|", history(branch));
        assertEquals("user:q1|assistant:a1|user:q2|", ResponsesHost.texts(store.inputs(second).orElseThrow()));
        assertEquals("user:q2|assistant:a2|", ResponsesHost.texts(store.history(second, 2).orElseThrow()));

        assertTrue(store.delete(second.id(), Caller.ADMIN_CALLER));
        assertEquals(Optional.empty(), store.find(second.id(), Caller.ADMIN_CALLER));
        assertEquals("user:q1|assistant:a1|", history(first), "the base stays for the others");
        assertEquals(2L, db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM response_messages WHERE chain_id = ?",
                r -> r.getLong(1), first.position().chainId())).orElseThrow(), "the removed turn's messages are pruned");
    }

    @Test
    void anotherKeysResponseIsAbsentAndNamesArePerKey() {
        var bobs = turn(store, id(1), "bob", null, "q", "a", "talk");
        turn(store, id(2), "admin", null, "q", "a", "talk");
        assertEquals(Optional.empty(), store.find(bobs.id(), Caller.tenant("alice")));
        assertTrue(store.find(bobs.id(), BOB).isPresent());
        assertFalse(store.delete(bobs.id(), Caller.tenant("alice")));
        assertEquals(Optional.of(id(1)), store.conversation("bob", "talk"));
        assertEquals(Optional.of(id(2)), store.conversation("admin", "talk"));
        assertEquals(Optional.empty(), store.conversation("alice", "talk"));
    }

    @Test
    void aConversationsChainIsListedAndRemovedWhole() {
        var one = turn(store, id(1), "bob", null, "q1", "a1", "talk");
        var two = turn(store, id(2), "bob", one, "q2", "a2", "talk");
        turn(store, id(3), "bob", two, "q3", "a3", "talk");
        turn(store, id(4), "bob", null, "elsewhere", "x", null);
        var catalog = new ResponseCatalog(db);
        assertEquals(List.of(id(3), id(2), id(1)), ids(catalog.page(null, "talk", "bob", null, 10)));
        var conversations = catalog.conversations("bob", 10);
        assertEquals(1, conversations.size());
        assertEquals(id(3), conversations.getFirst().responseId());
        assertEquals(3, conversations.getFirst().turns());
        assertEquals(Optional.of(3), store.deleteConversation("bob", "talk"));
        assertEquals(Optional.empty(), store.deleteConversation("bob", "talk"));
        assertEquals(List.of(id(4)), ids(catalog.page("bob", null, null, null, 10)));
    }

    @Test
    void theListIsNewestFirstByCreationTickAndPagesWithACursor() {
        for (int i = 1; i <= 5; i++) turn(store, id(i), i % 2 == 0 ? "bob" : "admin", null, "q" + i, "a" + i, null);
        store.find(id(1), Caller.ADMIN_CALLER); // using a response does not move it in the list
        var catalog = new ResponseCatalog(db);
        var first = catalog.page(null, null, null, null, 2);
        assertEquals(List.of(id(5), id(4)), ids(first));
        assertTrue(first.hasMore());
        var cursor = catalog.cursorAfter(id(4), Caller.ADMIN_CALLER).orElseThrow();
        var rest = catalog.page(null, null, null, cursor, 10);
        assertEquals(List.of(id(3), id(2), id(1)), ids(rest));
        assertFalse(rest.hasMore());
        assertEquals(List.of(id(4), id(2)), ids(catalog.page("bob", null, null, null, 10)));
        assertEquals(Optional.empty(), catalog.cursorAfter(id(1), BOB), "another key's id is unknown");
        var item = first.data().getFirst();
        assertEquals("q5", item.summary().inputPreview());
        assertEquals("a5", item.summary().outputPreview());
        assertEquals("completed", item.summary().status());
    }

    @Test
    void beyondMaxStoredTheLeastRecentlyUsedGo() {
        for (int i = 1; i <= 10; i++) turn(store, id(i), "admin", null, "q", "a", null);
        store.find(id(1), Caller.ADMIN_CALLER); // used: now the most recent
        turn(store, id(11), "admin", null, "q", "a", null);
        assertTrue(store.find(id(1), Caller.ADMIN_CALLER).isPresent());
        assertEquals(Optional.empty(), store.find(id(2), Caller.ADMIN_CALLER), "the least recently used went");
        assertEquals(10L, count(db, "SELECT COUNT(*) FROM responses"));
    }

    @Test
    void responsesLeftInProgressBecomeIncompleteAtStart() {
        var id = id(1);
        var envelope = envelope(id, "in_progress", "partial");
        store.save(new StoredResponse(id, "admin", envelope, null, "sess", true, CREATED, null, null),
                new TranscriptWrite(null, List.of(), List.of(Message.user("q")), 1), null);
        turn(store, id(2), "admin", null, "q", "in_progress", null); // the text, not the status: stays
        assertEquals(List.of(), store.interruptInProgress(clock.instant()), "its stream lease still runs");
        assertEquals(List.of(id), store.interruptInProgress(Instant.MAX), "SQLite's start: every lease is a dead process's");
        var recovered = store.find(id, Caller.ADMIN_CALLER).orElseThrow();
        assertEquals("incomplete", recovered.status());
        assertEquals("incomplete", recovered.envelope().path("output").get(0).path("status").asText());
        assertFalse(store.streaming(id, clock.instant()), "the lease ends with it");
        assertEquals(List.of(), store.interruptInProgress(Instant.MAX));
    }

    @Test
    void aStreamLeaseLastsWhileRenewedAndEndsWithTheStream() {
        var id = id(1);
        var response = new StoredResponse(id, "admin", envelope(id, "in_progress", ""), null, "sess", true, CREATED,
                null, null);
        store.save(response, new TranscriptWrite(null, List.of(), List.of(Message.user("q")), 1), null);
        assertTrue(store.streaming(id, clock.instant()));
        assertFalse(store.streaming(id, clock.instant().plus(ResponseStore.STREAM_LEASE).plusMillis(1)));
        clock.advance(Duration.ofSeconds(45));
        store.renewStreams(List.of(id, id(9)), clock.instant()); // an id not stored (store: false) is nothing
        clock.advance(Duration.ofSeconds(45)); // 90 s after the save, 45 s after the renewal
        assertEquals(List.of(), store.interruptAbandoned(clock.instant()));
        assertTrue(store.streaming(id, clock.instant()));
        clock.advance(ResponseStore.STREAM_LEASE); // no renewal since: the node is gone
        assertFalse(store.streaming(id, clock.instant()));
        assertEquals(List.of(id), store.interruptAbandoned(clock.instant()));
        assertEquals("incomplete", store.find(id, Caller.ADMIN_CALLER).orElseThrow().status());
        assertEquals(List.of(), store.interruptAbandoned(clock.instant().plus(Duration.ofHours(1))));

        var done = id(2);
        store.save(new StoredResponse(done, "admin", envelope(done, "in_progress", ""), null, "sess", true, CREATED,
                null, null), new TranscriptWrite(null, List.of(), List.of(Message.user("q")), 1), null);
        turn(store, done, "admin", null, "q", "a", null); // the stream's last save: completed
        assertFalse(store.streaming(done, clock.instant()));
        store.renewStreams(List.of(done), clock.instant()); // a renewal racing the stream's end adds no lease
        assertFalse(store.streaming(done, clock.instant()));
        assertEquals(List.of(), store.interruptAbandoned(clock.instant().plus(Duration.ofHours(1))));
        assertEquals("completed", store.find(done, Caller.ADMIN_CALLER).orElseThrow().status());
    }

    @Test
    void rowsWithoutListColumnsAreFilledOnce() {
        turn(store, id(1), "admin", null, "question", "answer", null);
        db.write(sql -> sql.update("UPDATE responses SET status = NULL, model = NULL, input_preview = NULL, "
                + "output_preview = NULL"));
        assertEquals(1, store.fillSummaries());
        assertEquals(0, store.fillSummaries());
        var item = new ResponseCatalog(db).page(null, null, null, null, 1).data().getFirst();
        assertEquals(new ResponseSummary("completed", "m", null, "question", "answer"), item.summary());
    }

    static List<String> ids(ResponseCatalog.Page page) {
        return page.data().stream().map(ResponseCatalog.Item::id).toList();
    }

    static long count(PluginDatabase db, String sql) {
        return db.read(s -> s.queryOne(sql, r -> r.getLong(1))).orElseThrow();
    }
}
