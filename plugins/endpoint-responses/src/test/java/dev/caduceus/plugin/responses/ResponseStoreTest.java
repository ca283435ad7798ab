package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.message.Message;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponseStoreTest {
    @TempDir Path dir;
    TestDatabase db;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private long count(String table) {
        return db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM " + table, r -> r.getLong(1)).orElseThrow());
    }

    private String create(ResponsesFixture api, String body) throws Exception {
        var ex = api.post(body);
        if (ex.stream() != null) return ResponsesFixture.data(ex.stream()).getFirst().get("response").get("id").asText();
        return ex.responseBody().get("id").asText();
    }

    @Test
    void journalsOlderThanTheRetentionArePrunedButTheResponseStays() throws Exception {
        var api = new ResponsesFixture(db, Map.of()).answers("ok");
        var id = create(api, "{\"input\":\"a\",\"stream\":true}");
        assertTrue(count("response_events") > 0);
        var store = new ResponseStore(db, new com.fasterxml.jackson.databind.ObjectMapper(), 10);
        var created = java.time.Instant.parse("2026-01-15T09:00:00Z").getEpochSecond(); // the fixture's clock
        assertEquals(0, store.pruneJournals(created), "not older than the cutoff yet");
        assertTrue(store.pruneJournals(created + 1) > 0);
        assertEquals(0, count("response_events"));
        assertEquals(200, api.get(id).status());
    }

    @Test
    void evictionAtMaxStoredRemovesTheLeastRecentlyUsedWithJournalAndNames() throws Exception {
        var api = new ResponsesFixture(db, Map.of("responses.max_stored", "2")).answers("ok");
        var a = create(api, "{\"input\":\"a\",\"stream\":true,\"conversation\":\"conv-a\"}");
        var b = create(api, "{\"input\":\"b\"}");
        assertEquals(200, api.get(a).status()); // a is now more recently used than b
        var c = create(api, "{\"input\":\"c\"}");
        assertEquals(404, api.get(b).status());
        assertEquals(200, api.get(a).status());
        assertEquals(200, api.get(c).status());
        create(api, "{\"input\":\"d\"}");
        create(api, "{\"input\":\"e\"}");
        assertEquals(404, api.get(a).status());
        assertEquals(2, count("responses"));
        assertEquals(0, count("response_events"));
        assertEquals(0, count("conversations"));
        // The evicted name starts a new conversation instead of failing.
        api.post("{\"input\":\"again\",\"conversation\":\"conv-a\"}");
        assertEquals("user:again|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void aCorruptEnvelopeIsDroppedOnRead() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"a\",\"conversation\":\"c1\"}");
        db.write(sql -> sql.update("UPDATE responses SET envelope = '{not json' WHERE id = ?", id));
        assertEquals(404, api.get(id).status());
        assertEquals(0, count("responses"));
        assertEquals(0, count("conversations"));
        assertEquals(0, count("response_messages"));
    }

    @Test
    void aCorruptTranscriptIsDroppedWhenTheChainIsContinued() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"a\",\"conversation\":\"c1\"}");
        db.write(sql -> sql.update("UPDATE response_messages SET message_json = '{not json'"));
        var ex = api.post("{\"input\":\"b\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, ex.status());
        assertEquals(0, count("responses"));
        assertEquals(0, count("conversations"));
        assertEquals(404, api.get(id).status());
        api.post("{\"input\":\"b\",\"conversation\":\"c1\"}");
        assertEquals("user:b|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void deleteRemovesTheResponseItsJournalAndItsConversationName() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"a\",\"stream\":true,\"conversation\":\"c1\"}");
        assertTrue(count("response_events") > 0);
        var ex = api.delete(id);
        assertEquals(200, ex.status());
        assertEquals("{\"id\":\"" + id + "\",\"object\":\"response\",\"deleted\":true}", ex.responseBody().toString());
        assertEquals(0, count("response_events"));
        assertEquals(0, count("conversations"));
        assertEquals(404, api.get(id).status());
        var again = api.delete(id);
        assertEquals(404, again.status());
        assertEquals("response_not_found", again.responseBody().get("error").get("code").asText());
        api.post("{\"input\":\"b\",\"conversation\":\"c1\"}");
        assertEquals("user:b|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void aLongChainIsRebuiltFromItsLastRowAlone() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"t0\"}");
        for (int i = 1; i < 30; i++) id = create(api, "{\"input\":\"t" + i + "\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(59, api.lastRequest().messages().size());
        // Deleting every earlier row does not matter: the last row points at the whole transcript.
        var last = id;
        db.write(sql -> sql.update("DELETE FROM responses WHERE id <> ?", last));
        create(api, "{\"input\":\"t30\",\"previous_response_id\":\"" + last + "\"}");
        assertEquals(61, api.lastRequest().messages().size());
    }

    private String next(ResponsesFixture api, String previous, String input) throws Exception {
        return create(api, "{\"input\":\"" + input + "\",\"previous_response_id\":\"" + previous + "\"}");
    }

    private String history(ResponsesFixture api) {
        return ResponsesFixture.texts(api.lastRequest().messages());
    }

    @Test
    void branchingFromAMiddleResponseGivesThatResponsesHistory() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var a = create(api, "{\"input\":\"a\"}");
        var b = next(api, a, "b");
        var c = next(api, b, "c");
        var x = next(api, b, "x"); // a branch: b is not the chain's tip
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:x|", history(api));
        var y = next(api, b, "y"); // a second branch from the same response
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:y|", history(api));
        next(api, c, "d"); // the original line is intact
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:c|assistant:ok|user:d|", history(api));
        next(api, x, "x2");
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:x|assistant:ok|user:x2|", history(api));
        next(api, y, "y2");
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:y|assistant:ok|user:y2|", history(api));
        next(api, a, "a2"); // from the very first response
        assertEquals("user:a|assistant:ok|user:a2|", history(api));
    }

    @Test
    void evictionAndDeleteKeepChainsStillReferencedAndPruneTheRest() throws Exception {
        var api = new ResponsesFixture(db, Map.of("responses.max_stored", "3")).answers("ok");
        var id = create(api, "{\"input\":\"t1\"}");
        for (int i = 2; i <= 5; i++) id = next(api, id, "t" + i);
        assertEquals(3, count("responses"));
        assertEquals(10, count("response_messages")); // t1 .. t5 and answers: the kept rows reach them all
        var tip = id;
        var before = next(api, tip, "t6");
        assertEquals(11, api.lastRequest().messages().size());
        assertEquals("user:t1|", ResponsesFixture.texts(api.lastRequest().messages().subList(0, 1)));
        assertEquals(200, api.delete(before).status()); // the tip's own messages go, the rest stays
        assertEquals(10, count("response_messages"));
        next(api, tip, "t6b");
        assertEquals(11, api.lastRequest().messages().size());
        var ids = db.read(sql -> sql.query("SELECT id FROM responses", r -> r.getString(1)));
        for (var stored : ids) api.delete(stored);
        assertEquals(0, count("responses"));
        assertEquals(0, count("response_messages"));
    }

    @Test
    void eachTurnOfA200TurnChainWritesOnlyItsOwnMessages() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"t1\"}");
        for (int i = 2; i <= 200; i++) {
            long before = count("response_messages");
            id = next(api, id, "t" + i);
            assertEquals(before + 2, count("response_messages"), "turn " + i);
        }
        assertEquals(399, api.lastRequest().messages().size());
        long chains = db.read(sql -> sql.queryOne("SELECT COUNT(DISTINCT chain_id) FROM responses",
                r -> r.getLong(1)).orElseThrow());
        assertEquals(1, chains);
    }

    @Test
    void truncationAutoReadsOnlyTheLast100MessagesOfAChain() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"t1\"}");
        for (int i = 2; i <= 60; i++) id = next(api, id, "t" + i);
        create(api, "{\"input\":\"q\",\"truncation\":\"auto\",\"previous_response_id\":\"" + id + "\"}");
        var sent = api.lastRequest().messages();
        assertEquals(101, sent.size());
        assertEquals("user:t11|", ResponsesFixture.texts(sent.subList(0, 1)));
        next(api, id, "full"); // the stored chain itself is whole
        assertEquals(121, api.lastRequest().messages().size());
    }

    @Test
    void aV1RowWithoutAChainIsReadFromItsTranscriptColumn() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"a\"}");
        var transcript = api.ctx.json().writeValueAsString(
                List.of(Message.user("old"), Message.assistant("reply")));
        db.write(sql -> sql.update("""
                UPDATE responses SET chain_id = NULL, base_seq = NULL, last_seq = NULL, transcript = ?
                WHERE id = ?""", transcript, id));
        db.write(sql -> sql.update("DELETE FROM response_messages"));
        var b = next(api, id, "b");
        assertEquals("user:old|assistant:reply|user:b|", history(api));
        next(api, b, "c"); // the next turn continues the chain seeded from the V1 transcript
        assertEquals("user:old|assistant:reply|user:b|assistant:ok|user:c|", history(api));
    }
}
