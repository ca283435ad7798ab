package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.support.idempotency.IdempotencyCache;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link StoredHistory}, what other plugins find as {@code ctx.service(ResponseHistory.class)} (the runs
 * API's {@code previous_response_id}; endpoint-runs' tests cover that path), loading responses the real
 * host created over HTTP: opened beside the host on its database ({@link ResponsesHost#history()}).
 */
class StoredHistoryTest {
    private static ResponsesHost api;
    private ResponsesHost.History history;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void open() {
        api.reset();
        history = api.history();
    }

    @AfterEach
    void closeHistory() {
        history.close();
    }

    @Test
    void loadsTheWholeChainUpToTheResponseWithItsInstructionsAndSession() throws Exception {
        var sessionKey = "user-" + UUID.randomUUID();
        api.answers("one").answersWithTool();
        var id1 = api.create("{\"input\":\"first\",\"instructions\":\"be brief\"}", "X-Hermes-Session-Key", sessionKey);
        var id2 = api.create("{\"input\":\"second\",\"previous_response_id\":\"" + id1 + "\"}");

        var conversation = history.load("admin", id2).orElseThrow();
        assertEquals("key-" + IdempotencyCache.sha256Hex(sessionKey).substring(0, 16), conversation.sessionId());
        assertEquals("be brief", conversation.instructions());
        assertEquals("user:first|assistant:one|user:second|assistant:Let me look.|tool:" + ResponsesHost.UNKNOWN_TERMINAL
                + "|assistant:There are 2 entries.|", ResponsesHost.texts(conversation.messages()));
        var call = conversation.messages().get(3).toolCalls().getFirst();
        assertEquals("call_1", call.id());
        assertEquals("terminal", call.name());
        assertEquals("call_1", conversation.messages().get(4).toolCallId());

        // An earlier response of the chain ends at its own answer, even though the chain goes on.
        var earlier = history.load("admin", id1).orElseThrow();
        assertEquals("user:first|assistant:one|", ResponsesHost.texts(earlier.messages()));
        assertEquals(conversation.sessionId(), earlier.sessionId());
    }

    @Test
    void isTheHistoryThatPreviousResponseIdSends() throws Exception {
        api.answers("one").answers("two").answers("three");
        var id1 = api.create("{\"input\":\"first\"}");
        var id2 = api.create("{\"input\":[{\"role\":\"user\",\"content\":\"a\"},\"second\"],\"previous_response_id\":\""
                + id1 + "\",\"instructions\":\"changed\"}");
        var loaded = history.load("admin", id2).orElseThrow();
        var third = api.post("{\"input\":\"third\",\"previous_response_id\":\"" + id2 + "\"}");
        assertEquals(200, third.status(), third.body());
        assertEquals(api.lastModelTexts(), ResponsesHost.texts(loaded.messages()) + "user:third|");
        assertEquals("user:first|assistant:one|user:a|user:second|assistant:two|", ResponsesHost.texts(loaded.messages()));
        assertEquals("changed", loaded.instructions());
        assertTrue(api.lastSystemPrompt().endsWith("changed"), "the continuation is sent the loaded instructions");
        assertEquals(third.header("X-Hermes-Session-Id").orElseThrow(), loaded.sessionId());
        assertFalse(api.lastModelRequest().path("stream").asBoolean(), "nobody reads a non-streaming response while it is written");
    }

    @Test
    void withoutInstructionsTheyAreNull() throws Exception {
        api.answers("one");
        var created = api.post("{\"input\":\"first\"}");
        var conversation = history.load("admin", created.json().get("id").asText()).orElseThrow();
        assertNull(conversation.instructions());
        assertEquals(created.header("X-Hermes-Session-Id").orElseThrow(), conversation.sessionId());
    }

    @Test
    void unknownUnstoredAndDeletedResponsesAreEmpty() throws Exception {
        api.answers("one").answers("two");
        assertTrue(history.load("admin", "resp_unknown").isEmpty());
        assertTrue(history.load("admin", "").isEmpty());
        assertTrue(history.load("admin", null).isEmpty());
        var unstored = api.create("{\"input\":\"x\",\"store\":false}");
        assertTrue(history.load("admin", unstored).isEmpty());
        var id = api.create("{\"input\":\"first\"}");
        assertTrue(history.load("admin", id).isPresent());
        assertEquals(200, api.delete(id).status());
        assertTrue(history.load("admin", id).isEmpty());
    }

    @Test
    void aResponseWhoseTranscriptIsGoneIsEmpty() throws Exception {
        api.answers("one");
        var id = api.create("{\"input\":\"first\"}");
        var chain = api.rows("SELECT chain_id FROM responses WHERE id = ?", id).getFirst();
        api.sql("DELETE FROM response_messages WHERE chain_id = ?", chain);
        assertTrue(history.load("admin", id).isEmpty());
    }
}
