package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.testkit.FakeExchange;
import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named keys are tenants (issue 21): a response belongs to the key that created it. Key
 * {@code bob} gets for {@code alice}'s response exactly what it gets for an id that does not exist,
 * on every path that takes an id; conversation names are per key; the admin key reaches all.
 */
class ResponsesTenancyTest {
    static final Caller ALICE = Caller.tenant("alice");
    static final Caller BOB = Caller.tenant("bob");
    static final Caller ADMIN = Caller.ADMIN_CALLER;

    @TempDir Path dir;
    TestDatabase db;
    ResponsesFixture api;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
        api = new ResponsesFixture(db).answers("ok");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private String create(Caller who, String body, String... headers) throws Exception {
        var ex = api.as(who).post(body, headers);
        assertEquals(200, ex.status(), String.valueOf(ex.responseBody()));
        if (ex.stream() != null) return ResponsesFixture.data(ex.stream()).getFirst().get("response").get("id").asText();
        return ex.responseBody().get("id").asText();
    }

    /** The 404 of an id nobody created, with the id in the message swapped for {@code id}. */
    private JsonNode unknown(FakeExchange ex, String id) {
        assertEquals(404, ex.status());
        var error = ex.responseBody().get("error").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) error).put("message",
                error.get("message").asText().replace("resp_nobody", id));
        return error;
    }

    private String owner(String id) {
        return db.read(sql -> sql.queryOne("SELECT owner FROM responses WHERE id = ?", r -> r.getString(1), id)).orElseThrow();
    }

    @Test
    void aResponseAndItsRunBelongToTheCallingKey() throws Exception {
        var id = create(ALICE, "{\"input\":\"hi\"}");
        assertEquals("alice", api.lastRequest().owner());
        assertEquals("alice", owner(id));
        var streamed = create(BOB, "{\"input\":\"hi\",\"stream\":true}");
        assertEquals("bob", api.lastRequest().owner());
        assertEquals("bob", owner(streamed));
        var admins = create(ADMIN, "{\"input\":\"hi\"}");
        assertEquals(Caller.ADMIN, api.lastRequest().owner());
        assertEquals(Caller.ADMIN, owner(admins));
    }

    @Test
    void retrieveIsTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var id = create(ALICE, "{\"input\":\"hi\"}");
        var unknown = unknown(api.as(BOB).get("resp_nobody"), id);
        var bob = api.as(BOB).get(id);
        assertEquals(404, bob.status());
        assertEquals(unknown, bob.responseBody().get("error"));
        assertEquals(200, api.as(ALICE).get(id).status());
        var admin = api.as(ADMIN).get(id);
        assertEquals(200, admin.status());
        assertEquals(id, admin.responseBody().get("id").asText());
    }

    @Test
    void replayIsTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var streamed = create(ALICE, "{\"input\":\"hi\",\"stream\":true}");
        var plain = create(ALICE, "{\"input\":\"hi\"}");
        for (var id : new String[] {streamed, plain}) {
            for (var query : new String[][] {{"stream", "true"}, {"stream", "true", "starting_after", "1"}}) {
                var bob = api.as(BOB).get(id, query);
                assertEquals(404, bob.status(), id);
                assertNull(bob.stream(), "no event stream is opened for another key's response");
                assertEquals(unknown(api.as(BOB).get("resp_nobody", query), id), bob.responseBody().get("error"));
                for (var owner : new Caller[] {ALICE, ADMIN}) {
                    var replay = api.as(owner).get(id, query);
                    assertEquals(200, replay.status());
                    assertEquals("response.completed", ResponsesFixture.names(replay.stream()).getLast());
                }
            }
        }
    }

    @Test
    void inputItemsAreTheUnknownIdsNotFoundForAnotherKey() throws Exception {
        var id = create(ALICE, "{\"input\":\"hi\"}");
        var bob = api.as(BOB).inputItems(id);
        assertEquals(404, bob.status());
        assertEquals(unknown(api.as(BOB).inputItems("resp_nobody"), id), bob.responseBody().get("error"));
        for (var owner : new Caller[] {ALICE, ADMIN}) {
            var items = api.as(owner).inputItems(id);
            assertEquals(200, items.status());
            assertEquals("hi", items.responseBody().get("data").get(0).get("content").get(0).get("text").asText());
        }
    }

    @Test
    void anotherKeyCannotDeleteButTheOwnerAndTheAdminCan() throws Exception {
        var id = create(ALICE, "{\"input\":\"hi\",\"conversation\":\"x\"}");
        var bob = api.as(BOB).delete(id);
        assertEquals(404, bob.status());
        assertEquals(unknown(api.as(BOB).delete("resp_nobody"), id), bob.responseBody().get("error"));
        assertEquals(200, api.as(ALICE).get(id).status(), "still there");
        assertEquals(200, api.as(ALICE).delete(id).status());
        assertEquals(404, api.as(ALICE).get(id).status());

        var other = create(BOB, "{\"input\":\"hi\"}");
        assertEquals(200, api.as(ADMIN).delete(other).status());
        assertEquals(404, api.as(BOB).get(other).status());
    }

    @Test
    void anotherKeysPreviousResponseIdIsTheUnknownIdsError() throws Exception {
        var id = create(ALICE, "{\"input\":\"secret\"}");
        var runs = api.runs.requests().size();
        var unknown = unknown(api.as(BOB).post("{\"input\":\"next\",\"previous_response_id\":\"resp_nobody\"}"), id);
        var bob = api.as(BOB).post("{\"input\":\"next\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, bob.status());
        assertEquals(unknown, bob.responseBody().get("error"));
        assertEquals(runs, api.runs.requests().size(), "no run started");
        // Even streaming: the 404 comes before the stream opens.
        var streaming = api.as(BOB).post("{\"input\":\"next\",\"stream\":true,\"previous_response_id\":\"" + id + "\"}");
        assertEquals(404, streaming.status());
        assertNull(streaming.stream());

        // With explicit history an unknown previous_response_id is ignored; so is another key's.
        create(BOB, "{\"input\":\"next\",\"previous_response_id\":\"" + id + "\","
                + "\"conversation_history\":[{\"role\":\"user\",\"content\":\"mine\"}]}");
        assertEquals("user:mine|user:next|", ResponsesFixture.texts(api.lastRequest().messages()));

        create(ALICE, "{\"input\":\"next\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:secret|assistant:ok|user:next|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void theAdminContinuesAnyKeysResponseAsItsOwn() throws Exception {
        var id = create(ALICE, "{\"input\":\"first\"}");
        var next = create(ADMIN, "{\"input\":\"second\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:first|assistant:ok|user:second|", ResponsesFixture.texts(api.lastRequest().messages()));
        assertEquals(Caller.ADMIN, api.lastRequest().owner());
        assertEquals(404, api.as(ALICE).get(next).status(), "the admin's turn is the admin's");
        // Alice's chain goes on undisturbed by the admin's branch.
        create(ALICE, "{\"input\":\"again\",\"previous_response_id\":\"" + id + "\"}");
        assertEquals("user:first|assistant:ok|user:again|", ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void conversationNamesArePerKey() throws Exception {
        create(ALICE, "{\"input\":\"alice one\",\"conversation\":\"x\"}");
        create(BOB, "{\"input\":\"bob one\",\"conversation\":\"x\"}");
        assertEquals("user:bob one|", ResponsesFixture.texts(api.lastRequest().messages()), "bob's own new conversation");
        assertNotEquals(api.runs.requests().get(0).sessionId(), api.lastRequest().sessionId());
        create(ALICE, "{\"input\":\"alice two\",\"conversation\":\"x\"}");
        assertEquals("user:alice one|assistant:ok|user:alice two|", ResponsesFixture.texts(api.lastRequest().messages()));
        var b2 = create(BOB, "{\"input\":\"bob two\",\"conversation\":\"x\"}");
        assertEquals("user:bob one|assistant:ok|user:bob two|", ResponsesFixture.texts(api.lastRequest().messages()));
        // The admin key's names are its own too: it reaches other keys' responses by id, not by name.
        create(ADMIN, "{\"input\":\"admin one\",\"conversation\":\"x\"}");
        assertEquals("user:admin one|", ResponsesFixture.texts(api.lastRequest().messages()));
        assertEquals(3L, (long) db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM conversations WHERE name = 'x'",
                r -> r.getLong(1)).orElseThrow()));
        // Deleting the response bob's "x" points at drops bob's name only.
        assertEquals(200, api.as(BOB).delete(b2).status());
        create(BOB, "{\"input\":\"bob anew\",\"conversation\":\"x\"}");
        assertEquals("user:bob anew|", ResponsesFixture.texts(api.lastRequest().messages()));
        create(ALICE, "{\"input\":\"alice three\",\"conversation\":\"x\"}");
        assertEquals("user:alice one|assistant:ok|user:alice two|assistant:ok|user:alice three|",
                ResponsesFixture.texts(api.lastRequest().messages()));
    }

    @Test
    void idempotencyKeysArePerKey() throws Exception {
        var body = "{\"input\":\"same\"}";
        api = new ResponsesFixture(db).answers("alice's answer").answers("bob's answer"); // in this order
        create(ALICE, body, "Idempotency-Key", "k1");
        var bob = api.as(BOB).post(body, "Idempotency-Key", "k1");
        assertEquals(2, api.runs.requests().size(), "bob's request runs: alice's cached result is not bob's");
        assertEquals("bob's answer", text(bob.responseBody()));
        assertEquals("bob", api.lastRequest().owner());
        var again = api.as(ALICE).post(body, "Idempotency-Key", "k1");
        assertEquals(2, api.runs.requests().size(), "alice's own retry is still answered from the cache");
        assertEquals("alice's answer", text(again.responseBody()));
    }

    private static String text(JsonNode response) {
        return response.get("output").get(0).get("content").get(0).get("text").asText();
    }

    @Test
    void storedHistoryLoadsOnlyTheOwnersResponsesAndTheAdminLoadsAny() throws Exception {
        ResponseHistory history = ((ResponseHistory) api.plugin.services(api.ctx).getFirst());
        var id = create(ALICE, "{\"input\":\"hi\"}");
        assertTrue(history.load("bob", id).isEmpty());
        assertEquals("user:hi|assistant:ok|", ResponsesFixture.texts(history.load("alice", id).orElseThrow().messages()));
        assertTrue(history.load(Caller.ADMIN, id).isPresent());
        var before = db.read(sql -> sql.queryOne("SELECT accessed_at FROM responses WHERE id = ?", r -> r.getLong(1), id));
        history.load("bob", id);
        assertEquals(before, db.read(sql -> sql.queryOne("SELECT accessed_at FROM responses WHERE id = ?",
                r -> r.getLong(1), id)), "another key's miss does not refresh the LRU tick");
    }
}
