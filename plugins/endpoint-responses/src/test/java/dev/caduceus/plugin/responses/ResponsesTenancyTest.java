package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.Turn;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Named keys are tenants (issue 21): a response belongs to the key that created it. Key
 * {@code bob} gets for {@code alice}'s response exactly what it gets for an id that does not exist,
 * on every path that takes an id; conversation names are per key; the admin key reaches all. On the
 * real host, with {@code alice} and {@code bob} added as {@code caduceus key add} adds them; every
 * model answer is "ok" unless a test queues others. Names are unique per test (the host is shared).
 */
class ResponsesTenancyTest {
    private static ResponsesHost admin;
    private static ResponsesHost alice;
    private static ResponsesHost bob;

    @BeforeAll
    static void boot() {
        admin = ResponsesHost.start();
        admin.upstream.setDefault(Turn.text("ok"));
        alice = admin.as(admin.host.addKey("alice"));
        bob = admin.as(admin.host.addKey("bob"));
    }

    @AfterAll
    static void shutDown() {
        if (admin != null) admin.close();
    }

    @BeforeEach
    void reset() {
        admin.reset();
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /** The 404 of an id nobody created, with the id in the message swapped for {@code id}. */
    private static JsonNode unknown(HostClient.Response ex, String id) {
        assertEquals(404, ex.status(), ex.body());
        var error = (ObjectNode) ex.error().deepCopy();
        error.put("message", error.get("message").asText().replace("resp_nobody", id));
        return error;
    }

    private static String owner(String id) throws Exception {
        return admin.rows("SELECT owner FROM responses WHERE id = ?", id).getFirst();
    }

    /** The session of the run behind {@code created} as the host stored it: a named key's sessions are its own. */
    private static List<String> storedSession(String session) throws Exception {
        return admin.rows("SELECT session_id FROM sessions WHERE session_id = ? OR session_id LIKE ?", session,
                "%\u001f" + session);
    }

    /** A JSON answer, not an event stream. */
    private static void assertNoStream(HostClient.Response ex) {
        assertTrue(ex.header("Content-Type").orElse("").startsWith("application/json"),
                "no event stream is opened for another key's response: " + ex.headers());
    }

    @Test
    void aResponseAndItsRunBelongToTheCallingKey() throws Exception {
        var created = alice.post("{\"input\":\"hi\"}");
        assertEquals(200, created.status(), created.body());
        assertEquals("alice", owner(created.json().get("id").asText()));
        var session = created.header("X-Hermes-Session-Id").orElseThrow();
        assertEquals(List.of("alice\u001f" + session), storedSession(session), "alice's run, in alice's session");

        try (var sse = bob.postStream("{\"input\":\"hi\",\"stream\":true}")) {
            var streamed = sse.rest().getFirst().data().get("response").get("id").asText();
            assertEquals("bob", owner(streamed));
            var bobs = sse.header("X-Hermes-Session-Id").orElseThrow();
            admin.awaitNoActiveRun("the streamed run has stored its session"); // after the stream's last event
            assertEquals(List.of("bob\u001f" + bobs), storedSession(bobs));
        }

        var admins = admin.post("{\"input\":\"hi\"}");
        assertEquals(Caller.ADMIN, owner(admins.json().get("id").asText()));
        var adminSession = admins.header("X-Hermes-Session-Id").orElseThrow();
        assertEquals(List.of(adminSession), storedSession(adminSession));
    }

    @Test
    void retrieveIsTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var id = alice.create("{\"input\":\"hi\"}");
        var unknown = unknown(bob.get("resp_nobody"), id);
        var other = bob.get(id);
        assertEquals(404, other.status());
        assertEquals(unknown, other.error());
        assertEquals(200, alice.get(id).status());
        var admins = admin.get(id);
        assertEquals(200, admins.status());
        assertEquals(id, admins.json().get("id").asText());
    }

    @Test
    void replayIsTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var streamed = alice.create("{\"input\":\"hi\",\"stream\":true}");
        var plain = alice.create("{\"input\":\"hi\"}");
        for (var id : new String[] {streamed, plain}) {
            for (var query : new String[][] {{"stream", "true"}, {"stream", "true", "starting_after", "1"}}) {
                var other = bob.get(id, query);
                assertEquals(404, other.status(), id);
                assertNoStream(other);
                assertEquals(unknown(bob.get("resp_nobody", query), id), other.error());
                for (var owner : new ResponsesHost[] {alice, admin})
                    assertEquals("response.completed", ResponsesHost.names(owner.replay(id, query)).getLast());
            }
        }
    }

    @Test
    void inputItemsAreTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var id = alice.create("{\"input\":\"hi\"}");
        var other = bob.inputItems(id);
        assertEquals(404, other.status());
        assertEquals(unknown(bob.inputItems("resp_nobody"), id), other.error());
        for (var owner : new ResponsesHost[] {alice, admin}) {
            var items = owner.inputItems(id);
            assertEquals(200, items.status());
            assertEquals("hi", items.json().get("data").get(0).get("content").get(0).get("text").asText());
        }
    }

    @Test
    void anotherKeyCannotDeleteButTheOwnerAndTheAdminCan() throws Exception {
        var id = alice.create("{\"input\":\"hi\",\"conversation\":\"" + unique("x") + "\"}");
        var other = bob.delete(id);
        assertEquals(404, other.status());
        assertEquals(unknown(bob.delete("resp_nobody"), id), other.error());
        assertEquals(200, alice.get(id).status(), "still there");
        assertEquals(200, alice.delete(id).status());
        assertEquals(404, alice.get(id).status());

        var bobs = bob.create("{\"input\":\"hi\"}");
        assertEquals(200, admin.delete(bobs).status());
        assertEquals(404, bob.get(bobs).status());
    }

    @Test
    void anotherKeysPreviousResponseIdIsTheUnknownIdsError() throws Exception {
        var id = alice.create("{\"input\":\"secret\"}");
        var calls = admin.modelCalls();
        var unknown = unknown(bob.post("{\"input\":\"next\",\"previous_response_id\":\"resp_nobody\"}"), id);
        var other = bob.post("{\"input\":\"next\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, other.status());
        assertEquals(unknown, other.error());
        // Even streaming: the 404 comes before the stream opens.
        var streaming = bob.post("{\"input\":\"next\",\"stream\":true,\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, streaming.status());
        assertNoStream(streaming);
        assertEquals(calls, admin.modelCalls(), "no run started");

        // With explicit history an unknown previous_response_id is ignored; so is another key's.
        bob.create("{\"input\":\"next\",\"previous_response_id\":\"" + id + "\","
                + "\"conversation_history\":[{\"role\":\"user\",\"content\":\"mine\"}]}");
        assertEquals("user:mine|user:next|", admin.lastModelTexts());

        alice.create("{\"input\":\"next\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:secret|assistant:ok|user:next|", admin.lastModelTexts());
    }

    @Test
    void theAdminContinuesAnyKeysResponseAsItsOwn() throws Exception {
        var id = alice.create("{\"input\":\"first\"}");
        var next = admin.create("{\"input\":\"second\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:first|assistant:ok|user:second|", admin.lastModelTexts());
        assertEquals(Caller.ADMIN, owner(next));
        assertEquals(404, alice.get(next).status(), "the admin's turn is the admin's");
        // Alice's chain goes on undisturbed by the admin's branch.
        alice.create("{\"input\":\"again\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:first|assistant:ok|user:again|", admin.lastModelTexts());
    }

    @Test
    void conversationNamesArePerKey() throws Exception {
        var x = unique("x");
        var first = alice.post("{\"input\":\"alice one\",\"conversation\":\"" + x + "\"}");
        var bobs = bob.post("{\"input\":\"bob one\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:bob one|", admin.lastModelTexts(), "bob's own new conversation");
        assertNotEquals(first.header("X-Hermes-Session-Id"), bobs.header("X-Hermes-Session-Id"));
        alice.create("{\"input\":\"alice two\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:alice one|assistant:ok|user:alice two|", admin.lastModelTexts());
        var b2 = bob.create("{\"input\":\"bob two\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:bob one|assistant:ok|user:bob two|", admin.lastModelTexts());
        // The admin key's names are its own too: it reaches other keys' responses by id, not by name.
        admin.create("{\"input\":\"admin one\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:admin one|", admin.lastModelTexts());
        assertEquals(3, admin.rows("SELECT owner FROM conversations WHERE name = ?", x).size());
        // Deleting the response bob's name points at drops bob's name only.
        assertEquals(200, bob.delete(b2).status());
        bob.create("{\"input\":\"bob anew\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:bob anew|", admin.lastModelTexts());
        alice.create("{\"input\":\"alice three\",\"conversation\":\"" + x + "\"}");
        assertEquals("user:alice one|assistant:ok|user:alice two|assistant:ok|user:alice three|", admin.lastModelTexts());
    }

    @Test
    void idempotencyKeysArePerKey() throws Exception {
        var body = "{\"input\":\"same\"}";
        var key = unique("k1");
        admin.upstream.enqueue(Turn.text("alice's answer"), Turn.text("bob's answer")); // in this order
        int calls = admin.modelCalls();
        alice.create(body, "Idempotency-Key", key);
        var other = bob.post(body, "Idempotency-Key", key);
        assertEquals(2, admin.modelCalls() - calls, "bob's request runs: alice's cached result is not bob's");
        assertEquals("bob's answer", text(other.json()));
        assertEquals("bob", owner(other.json().get("id").asText()));
        var again = alice.post(body, "Idempotency-Key", key);
        assertEquals(2, admin.modelCalls() - calls, "alice's own retry is still answered from the cache");
        assertEquals("alice's answer", text(again.json()));
    }

    private static String text(JsonNode response) {
        return response.get("output").get(0).get("content").get(0).get("text").asText();
    }

    @Test
    void storedHistoryLoadsOnlyTheOwnersResponsesAndTheAdminLoadsAny() throws Exception {
        var id = alice.create("{\"input\":\"hi\"}");
        try (var history = admin.history()) {
            assertTrue(history.load("bob", id).isEmpty());
            assertEquals("user:hi|assistant:ok|", ResponsesHost.texts(history.load("alice", id).orElseThrow().messages()));
            assertTrue(history.load(Caller.ADMIN, id).isPresent());
            var before = admin.rows("SELECT accessed_at FROM responses WHERE id = ?", id);
            history.load("bob", id);
            assertEquals(before, admin.rows("SELECT accessed_at FROM responses WHERE id = ?", id),
                    "another key's miss does not refresh the LRU tick");
        }
    }
}
