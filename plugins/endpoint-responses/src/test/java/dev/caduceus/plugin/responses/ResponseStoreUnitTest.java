package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.message.Message;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ResponseStore} alone on a real SQLite database with the plugin's migrations: what needs no
 * run, such as journal retention, whose hourly job a test on the real host cannot wait for. The rest
 * of the store is {@link ResponseStoreTest}'s, on the real host.
 */
class ResponseStoreUnitTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long CREATED = 1768467600L; // 2026-01-15T09:00:00Z

    @TempDir Path dir;
    TestDatabase db;
    ResponseStore store;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        store = new ResponseStore(db, JSON, 10);
    }

    @AfterEach
    void tearDown() {
        db.close();
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
        var id = saveStreamed("resp_0000000000000000000000000001");
        assertEquals(2, store.frames(id, -1).size());
        assertEquals(0, store.pruneJournals(CREATED), "not older than the cutoff yet");
        assertEquals(2, store.pruneJournals(CREATED + 1));
        assertTrue(store.frames(id, -1).isEmpty());
        assertTrue(store.lastSeq(id).isEmpty());
        var kept = store.find(id, Caller.ADMIN_CALLER).orElseThrow();
        assertEquals("completed", kept.status());
        assertEquals("user:a|assistant:ok|", ResponsesHost.texts(store.history(kept, Integer.MAX_VALUE).orElseThrow()));
    }
}
