package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
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
    void aCorruptRowIsDroppedOnRead() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"a\",\"conversation\":\"c1\"}");
        db.write(sql -> sql.update("UPDATE responses SET transcript = '{not json' WHERE id = ?", id));
        assertEquals(404, api.get(id).status());
        assertEquals(0, count("responses"));
        assertEquals(0, count("conversations"));
        var ex = api.post("{\"input\":\"b\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, ex.status());
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
    void aLongChainIsRebuiltFromOneRow() throws Exception {
        var api = new ResponsesFixture(db).answers("ok");
        var id = create(api, "{\"input\":\"t0\"}");
        for (int i = 1; i < 30; i++) id = create(api, "{\"input\":\"t" + i + "\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(59, api.lastRequest().messages().size());
        // Deleting every earlier turn does not matter: the last row holds the whole transcript.
        var last = id;
        db.write(sql -> sql.update("DELETE FROM responses WHERE id <> ?", last));
        create(api, "{\"input\":\"t30\",\"previous_response_id\":\"" + last + "\"}");
        assertEquals(61, api.lastRequest().messages().size());
    }
}
