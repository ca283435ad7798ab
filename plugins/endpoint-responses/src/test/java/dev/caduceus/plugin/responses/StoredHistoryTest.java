package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredHistoryTest {
    @TempDir Path dir;
    TestDatabase db;
    ResponsesFixture api;
    ResponseHistory history;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        api = new ResponsesFixture(db);
        history = ((ResponseHistory) api.plugin.services(api.ctx).getFirst()); // what other plugins find as ctx.service(ResponseHistory.class)
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private String create(String body, String... headers) throws Exception {
        return api.post(body, headers).responseBody().get("id").asText();
    }

    @Test
    void loadsTheWholeChainUpToTheResponseWithItsInstructionsAndSession() throws Exception {
        api.answers("one").answersWithTool();
        var id1 = create("{\"input\":\"first\",\"instructions\":\"be brief\"}", "X-Hermes-Session-Key", "user-42");
        var id2 = create("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");

        var conversation = history.load("admin", id2).orElseThrow();
        assertEquals("key-" + IdempotencyCache.sha256Hex("user-42").substring(0, 16), conversation.sessionId());
        assertEquals("be brief", conversation.instructions());
        assertEquals("user:first|assistant:one|user:second|assistant:|tool:README.md src|"
                + "assistant:Let me look. There are 2 entries.|", ResponsesFixture.texts(conversation.messages()));
        var call = conversation.messages().get(3).toolCalls().getFirst();
        assertEquals("call_1", call.id());
        assertEquals("call_1", conversation.messages().get(4).toolCallId());

        // An earlier response of the chain ends at its own answer, even though the chain goes on.
        var earlier = history.load("admin", id1).orElseThrow();
        assertEquals("user:first|assistant:one|", ResponsesFixture.texts(earlier.messages()));
        assertEquals(conversation.sessionId(), earlier.sessionId());
    }

    @Test
    void isTheHistoryThatPreviousResponseIdSends() throws Exception {
        api.answers("one").answers("two").answers("three");
        var id1 = create("{\"input\":\"first\"}");
        var id2 = create("{\"input\":[{\"role\":\"user\",\"content\":\"a\"},\"second\"],\"previous_response_id\":\""
                + id1 + "\",\"instructions\":\"changed\"}");
        var loaded = history.load("admin", id2).orElseThrow();
        create("{\"input\":\"third\",\"previous_response_id\":\"" + id2 + "\"}");
        var sent = api.lastRequest();
        assertEquals(sent.messages().subList(0, sent.messages().size() - 1), loaded.messages());
        assertEquals(sent.instructions(), loaded.instructions());
        assertEquals("changed", loaded.instructions());
        assertEquals(sent.sessionId(), loaded.sessionId());
        assertFalse(sent.stream(), "nobody reads a non-streaming response while it is written");
    }

    @Test
    void withoutInstructionsTheyAreNull() throws Exception {
        api.answers("one");
        var id = create("{\"input\":\"first\"}");
        var conversation = history.load("admin", id).orElseThrow();
        assertEquals(null, conversation.instructions());
        assertEquals(api.lastRequest().sessionId(), conversation.sessionId());
    }

    @Test
    void unknownUnstoredAndDeletedResponsesAreEmpty() throws Exception {
        api.answers("one").answers("two");
        assertTrue(history.load("admin", "resp_unknown").isEmpty());
        assertTrue(history.load("admin", "").isEmpty());
        assertTrue(history.load("admin", null).isEmpty());
        var unstored = create("{\"input\":\"x\",\"store\":false}");
        assertTrue(history.load("admin", unstored).isEmpty());
        var id = create("{\"input\":\"first\"}");
        assertTrue(history.load("admin", id).isPresent());
        assertEquals(200, api.delete(id).status());
        assertTrue(history.load("admin", id).isEmpty());
    }

    @Test
    void aResponseWhoseTranscriptIsGoneIsEmpty() throws Exception {
        api.answers("one");
        var id = create("{\"input\":\"first\"}");
        db.write(sql -> sql.update("DELETE FROM response_messages"));
        assertTrue(history.load("admin", id).isEmpty());
    }
}
