package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.message.Message;
import dev.caduceus.platform.testkit.Turn;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The response store as the real host uses it ({@link ResponsesHost}): eviction, corrupt rows, delete,
 * and the chain store behind {@code previous_response_id}, read where it ends up: the history the
 * model is sent and the plugin's tables. Each test has a host of its own (the table counts are its
 * own), every model answer "ok". Journal retention is {@link ResponseStoreUnitTest}'s.
 */
class ResponseStoreTest {
    private ResponsesHost api;

    /** A new host (with {@code env}) whose model answers every turn "ok". */
    private ResponsesHost start(String... env) {
        api = ResponsesHost.start(env);
        api.upstream.setDefault(Turn.text("ok"));
        return api;
    }

    @AfterEach
    void tearDown() {
        if (api != null) api.close();
    }

    private String next(String previous, String input) throws Exception {
        return api.create("{\"input\":\"" + input + "\",\"previous_response_id\":\"" + previous + "\"}");
    }

    /** The history the model was last sent, as {@code role:text|…}. */
    private String history() {
        return api.lastModelTexts();
    }

    private int historySize() {
        return api.lastModelMessages().size();
    }

    @Test
    void evictionAtMaxStoredRemovesTheLeastRecentlyUsedWithJournalAndNames() throws Exception {
        start("CADUCEUS__RESPONSES__MAX_STORED", "2");
        var a = api.create("{\"input\":\"a\",\"stream\":true,\"conversation\":\"conv-a\"}");
        var b = api.create("{\"input\":\"b\"}");
        assertEquals(200, api.get(a).status()); // a is now more recently used than b
        var c = api.create("{\"input\":\"c\"}");
        assertEquals(404, api.get(b).status());
        assertEquals(200, api.get(a).status());
        assertEquals(200, api.get(c).status());
        api.create("{\"input\":\"d\"}");
        api.create("{\"input\":\"e\"}");
        assertEquals(404, api.get(a).status());
        assertEquals(2, api.count("responses"));
        assertEquals(0, api.count("response_events"));
        assertEquals(0, api.count("conversations"));
        // The evicted name starts a new conversation instead of failing.
        api.create("{\"input\":\"again\",\"conversation\":\"conv-a\"}");
        assertEquals("user:again|", history());
    }

    @Test
    void aCorruptEnvelopeIsDroppedOnRead() throws Exception {
        start();
        var id = api.create("{\"input\":\"a\",\"conversation\":\"c1\"}");
        api.sql("UPDATE responses SET envelope = '{not json' WHERE id = ?", id);
        assertEquals(404, api.get(id).status());
        assertEquals(0, api.count("responses"));
        assertEquals(0, api.count("conversations"));
        assertEquals(0, api.count("response_messages"));
    }

    @Test
    void aCorruptTranscriptIsDroppedWhenTheChainIsContinued() throws Exception {
        start();
        var id = api.create("{\"input\":\"a\",\"conversation\":\"c1\"}");
        int calls = api.modelCalls();
        api.sql("UPDATE response_messages SET message_json = '{not json'");
        var ex = api.post("{\"input\":\"b\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, ex.status(), ex.body());
        assertEquals("previous_response_not_found", ex.error().get("code").asText());
        assertEquals(calls, api.modelCalls(), "no run started");
        assertEquals(0, api.count("responses"));
        assertEquals(0, api.count("conversations"));
        assertEquals(404, api.get(id).status());
        api.create("{\"input\":\"b\",\"conversation\":\"c1\"}");
        assertEquals("user:b|", history());
    }

    @Test
    void deleteRemovesTheResponseItsJournalAndItsConversationName() throws Exception {
        start();
        var id = api.create("{\"input\":\"a\",\"stream\":true,\"conversation\":\"c1\"}");
        assertTrue(api.count("response_events") > 0);
        var ex = api.delete(id);
        assertEquals(200, ex.status());
        assertEquals("{\"id\":\"" + id + "\",\"object\":\"response\",\"deleted\":true}", ex.json().toString());
        assertEquals(0, api.count("response_events"));
        assertEquals(0, api.count("conversations"));
        assertEquals(404, api.get(id).status());
        var again = api.delete(id);
        assertEquals(404, again.status());
        assertEquals("response_not_found", again.error().get("code").asText());
        api.create("{\"input\":\"b\",\"conversation\":\"c1\"}");
        assertEquals("user:b|", history());
    }

    @Test
    void aLongChainIsRebuiltFromItsLastRowAlone() throws Exception {
        start();
        var id = api.create("{\"input\":\"t0\"}");
        for (int i = 1; i < 30; i++) id = next(id, "t" + i);
        assertEquals(59, historySize());
        // Deleting every earlier row does not matter: the last row points at the whole transcript.
        api.sql("DELETE FROM responses WHERE id <> ?", id);
        next(id, "t30");
        assertEquals(61, historySize());
    }

    @Test
    void branchingFromAMiddleResponseGivesThatResponsesHistory() throws Exception {
        start();
        var a = api.create("{\"input\":\"a\"}");
        var b = next(a, "b");
        var c = next(b, "c");
        var x = next(b, "x"); // a branch: b is not the chain's tip
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:x|", history());
        var y = next(b, "y"); // a second branch from the same response
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:y|", history());
        next(c, "d"); // the original line is intact
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:c|assistant:ok|user:d|", history());
        next(x, "x2");
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:x|assistant:ok|user:x2|", history());
        next(y, "y2");
        assertEquals("user:a|assistant:ok|user:b|assistant:ok|user:y|assistant:ok|user:y2|", history());
        next(a, "a2"); // from the very first response
        assertEquals("user:a|assistant:ok|user:a2|", history());
    }

    @Test
    void evictionAndDeleteKeepChainsStillReferencedAndPruneTheRest() throws Exception {
        start("CADUCEUS__RESPONSES__MAX_STORED", "3");
        var id = api.create("{\"input\":\"t1\"}");
        for (int i = 2; i <= 5; i++) id = next(id, "t" + i);
        assertEquals(3, api.count("responses"));
        assertEquals(10, api.count("response_messages")); // t1 .. t5 and answers: the kept rows reach them all
        var tip = id;
        var before = next(tip, "t6");
        assertEquals(11, historySize());
        assertTrue(history().startsWith("user:t1|"), history());
        assertEquals(200, api.delete(before).status()); // the tip's own messages go, the rest stays
        assertEquals(10, api.count("response_messages"));
        next(tip, "t6b");
        assertEquals(11, historySize());
        for (var stored : api.rows("SELECT id FROM responses")) api.delete(stored);
        assertEquals(0, api.count("responses"));
        assertEquals(0, api.count("response_messages"));
    }

    @Test
    void eachTurnOfA200TurnChainWritesOnlyItsOwnMessages() throws Exception {
        start();
        var id = api.create("{\"input\":\"t1\"}");
        for (int i = 2; i <= 200; i++) {
            long before = api.count("response_messages");
            id = next(id, "t" + i);
            assertEquals(before + 2, api.count("response_messages"), "turn " + i);
        }
        assertEquals(399, historySize());
        assertEquals(List.of("1"), api.rows("SELECT COUNT(DISTINCT chain_id) FROM responses"));
    }

    @Test
    void truncationAutoReadsOnlyTheLast100MessagesOfAChain() throws Exception {
        start();
        var id = api.create("{\"input\":\"t1\"}");
        for (int i = 2; i <= 60; i++) id = next(id, "t" + i);
        api.create("{\"input\":\"q\",\"truncation\":\"auto\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(101, historySize());
        assertTrue(history().startsWith("user:t11|"), history());
        next(id, "full"); // the stored chain itself is whole
        assertEquals(121, historySize());
    }

    @Test
    void aV1RowWithoutAChainIsReadFromItsTranscriptColumn() throws Exception {
        start();
        var id = api.create("{\"input\":\"a\"}");
        var transcript = ResponsesHost.JSON.writeValueAsString(List.of(Message.user("old"), Message.assistant("reply")));
        api.sql("""
                UPDATE responses SET chain_id = NULL, base_seq = NULL, last_seq = NULL, transcript = ?
                WHERE id = ?""", transcript, id);
        api.sql("DELETE FROM response_messages");
        var b = next(id, "b");
        assertEquals("user:old|assistant:reply|user:b|", history());
        next(b, "c"); // the next turn continues the chain seeded from the V1 transcript
        assertEquals("user:old|assistant:reply|user:b|assistant:ok|user:c|", history());
    }
}
