package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET /v1/responses} on the real host and store: the caller's stored responses newest first,
 * their summaries, paging with {@code after}, the {@code conversation} filter, tenancy as on
 * {@code GET /v1/runs}, and the 400s. The host is shared; each test lists through keys of its own
 * (added as {@code caduceus key add} adds them), so lists do not see other tests' responses. Every
 * model answer is "ok" unless a test queues others.
 */
class ResponseListTest {
    static final String LIST = "/v1/responses";
    static final AtomicInteger KEYS = new AtomicInteger();

    private static ResponsesHost admin;

    @BeforeAll
    static void boot() {
        admin = ResponsesHost.start();
        admin.upstream.setDefault(Turn.text("ok"));
    }

    @AfterAll
    static void shutDown() {
        if (admin != null) admin.close();
    }

    @BeforeEach
    void reset() {
        admin.reset();
    }

    /** A new named key: its name and the host as it. */
    static Key key() {
        var name = "list" + KEYS.incrementAndGet();
        return new Key(name, admin.as(admin.host.addKey(name)));
    }

    record Key(String name, ResponsesHost host) {
        String create(String body) throws Exception {
            return host.create(body);
        }

        HostClient.Response list(String query) {
            return host.http().get(LIST + (query.isEmpty() ? "" : "?" + query));
        }

        JsonNode ok(String query) {
            var answer = list(query);
            assertEquals(200, answer.status(), answer.body());
            return answer.json();
        }
    }

    static List<String> ids(JsonNode page) {
        var ids = new ArrayList<String>();
        page.path("data").forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    static JsonNode item(JsonNode page, String id) {
        for (var item : page.path("data")) if (item.path("id").asText().equals(id)) return item;
        throw new AssertionError("no " + id + " in " + page);
    }

    @Test
    void theKeysResponsesNewestFirstWithTheirSummaries() throws Exception {
        var k = key();
        admin.answers("The first answer.");
        var first = k.create("{\"input\":\"first question\"}");
        admin.answers("The second answer.");
        var second = k.create("{\"input\":\"second question\",\"previous_response_id\":\"" + first + "\"}");
        admin.answers("The third answer.");
        var third = k.create("{\"input\":[{\"role\":\"developer\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"third \"},"
                + "{\"type\":\"input_image\",\"image_url\":\"https://example.com/a.png\"},"
                + "{\"type\":\"input_text\",\"text\":\"question\"}]}],\"conversation\":\"talk\",\"model\":\"my-model\"}");

        var page = k.ok("");
        assertEquals("list", page.path("object").asText());
        assertEquals(List.of(third, second, first), ids(page));
        assertEquals(third, page.path("first_id").asText());
        assertEquals(first, page.path("last_id").asText());
        assertFalse(page.path("has_more").asBoolean());
        var keys = new ArrayList<String>();
        page.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("object", "data", "first_id", "last_id", "has_more"), keys);

        var entry = item(page, third);
        var fields = new ArrayList<String>();
        entry.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("id", "created_at", "status", "model", "previous_response_id", "conversation",
                "input_preview", "output_preview", "owner", "metadata"), fields);
        assertEquals(k.host().get(third).json().path("created_at").asLong(), entry.path("created_at").asLong());
        assertEquals("completed", entry.path("status").asText());
        assertEquals("my-model", entry.path("model").asText());
        assertTrue(entry.path("previous_response_id").isNull());
        assertEquals("talk", entry.path("conversation").asText());
        assertEquals("third question", entry.path("input_preview").asText(), "the user message's text parts");
        assertEquals("The third answer.", entry.path("output_preview").asText());
        assertEquals(k.name(), entry.path("owner").asText());

        var chained = item(page, second);
        assertEquals(first, chained.path("previous_response_id").asText());
        assertTrue(chained.path("conversation").isNull());
        assertEquals("second question", chained.path("input_preview").asText());
        assertEquals("The second answer.", chained.path("output_preview").asText());
        assertEquals("hermes-agent", item(page, first).path("model").asText(), "the advertised model when none was sent");
    }

    @Test
    void pagesFollowAfterUntilHasMoreIsFalse() throws Exception {
        var k = key();
        var made = new ArrayList<String>();
        for (int i = 0; i < 5; i++) made.add(0, k.create("{\"input\":\"n" + i + "\"}")); // newest first
        var one = k.ok("limit=2");
        assertEquals(made.subList(0, 2), ids(one));
        assertTrue(one.path("has_more").asBoolean());
        var two = k.ok("limit=2&after=" + one.path("last_id").asText());
        assertEquals(made.subList(2, 4), ids(two));
        assertTrue(two.path("has_more").asBoolean());
        var three = k.ok("limit=2&after=" + two.path("last_id").asText());
        assertEquals(made.subList(4, 5), ids(three));
        assertFalse(three.path("has_more").asBoolean());
        var past = k.ok("limit=2&after=" + made.get(4));
        assertEquals(List.of(), ids(past));
        assertTrue(past.path("first_id").isNull());
        assertTrue(past.path("last_id").isNull());
        assertFalse(past.path("has_more").asBoolean());
        assertEquals(made, ids(k.ok("limit=100")));
        assertEquals(made, ids(k.ok("")), "20 by default");
    }

    @Test
    void theConversationFilterKeepsThatConversationsChain() throws Exception {
        var k = key();
        var other = key();
        var x1 = k.create("{\"input\":\"x one\",\"conversation\":\"x\"}");
        var branch = k.create("{\"input\":\"aside\",\"previous_response_id\":\"" + x1 + "\"}");
        var x2 = k.create("{\"input\":\"x two\",\"conversation\":\"x\"}");
        var y1 = k.create("{\"input\":\"y one\",\"conversation\":\"y\"}");
        var x3 = k.create("{\"input\":\"x three\",\"conversation\":\"x\"}");
        other.create("{\"input\":\"someone else's x\",\"conversation\":\"x\"}");

        assertEquals(List.of(x3, x2, x1), ids(k.ok("conversation=x")));
        assertEquals(List.of(y1), ids(k.ok("conversation=y")));
        assertEquals(List.of(x3, y1, x2, branch, x1), ids(k.ok("")));
        var first = k.ok("conversation=x&limit=2");
        assertEquals(List.of(x3, x2), ids(first));
        assertTrue(first.path("has_more").asBoolean());
        assertEquals(List.of(x1), ids(k.ok("conversation=x&limit=2&after=" + x2)));
        assertEquals(List.of(), ids(k.ok("conversation=nope")), "an unknown name lists nothing");
        assertEquals(1, other.ok("conversation=x").path("data").size(), "names are per key");
    }

    @Test
    void previewsArePlainTextOfAtMost200Characters() throws Exception {
        var k = key();
        var input = ("line one\n\n\tline two   " + "é".repeat(300)).replace("\n", "\\n").replace("\t", "\\t");
        admin.upstream.enqueue(Turn.text("A".repeat(150) + "\n" + "😀".repeat(100)));
        var id = k.create("{\"input\":\"" + input + "\"}");
        var entry = item(k.ok(""), id);
        var in = entry.path("input_preview").asText();
        assertEquals(200, in.codePointCount(0, in.length()), in);
        assertTrue(in.startsWith("line one line two éé"), in);
        assertTrue(in.endsWith("é…"), in);
        var out = entry.path("output_preview").asText();
        assertEquals(200, out.codePointCount(0, out.length()), out);
        assertTrue(out.startsWith("A".repeat(150) + " 😀"), out);
        assertTrue(out.endsWith("😀…"), "cut between code points, never inside a surrogate pair: " + out);
    }

    @Test
    void aFailedResponseHasNoOutputPreviewAndAStreamedOneItsFinalState() throws Exception {
        var k = key();
        admin.upstream.enqueue(Turn.error(400, "upstream refused"));
        var failed = k.create("{\"input\":\"will fail\"}");
        admin.upstream.enqueue(Turn.textChunks("Stre", "amed."));
        var streamed = k.create("{\"input\":\"stream it\",\"stream\":true}");
        var page = k.ok("");
        assertEquals("failed", item(page, failed).path("status").asText());
        assertTrue(item(page, failed).path("output_preview").isNull(), item(page, failed).toString());
        assertEquals("will fail", item(page, failed).path("input_preview").asText());
        assertEquals("completed", item(page, streamed).path("status").asText());
        assertEquals("Streamed.", item(page, streamed).path("output_preview").asText());
    }

    @Test
    void unstoredAndDeletedResponsesAreNotListed() throws Exception {
        var k = key();
        var kept = k.create("{\"input\":\"keep\"}");
        k.create("{\"input\":\"do not store\",\"store\":false}");
        var gone = k.create("{\"input\":\"delete me\"}");
        assertEquals(200, k.host().delete(gone).status());
        assertEquals(List.of(kept), ids(k.ok("")));
    }

    @Test
    void aNamedKeyListsItsOwnAndTheAdminKeyAllOrOneKeys() throws Exception {
        var alice = key();
        var bob = key();
        var a = alice.create("{\"input\":\"alice's\"}");
        var b = bob.create("{\"input\":\"bob's\"}");
        var mine = admin.create("{\"input\":\"the admin's\"}");
        assertEquals(List.of(a), ids(alice.ok("")));
        assertEquals(List.of(b), ids(bob.ok("")));
        assertEquals(List.of(a), ids(alice.ok("owner=" + bob.name())), "?owner= is ignored for a named key");
        assertEquals(List.of(b), ids(admin.http().get(LIST + "?owner=" + bob.name()).json()));
        var all = ids(admin.http().get(LIST + "?limit=100").json());
        assertTrue(all.containsAll(List.of(a, b, mine)), all.toString());
        assertTrue(all.indexOf(mine) < all.indexOf(b) && all.indexOf(b) < all.indexOf(a), "newest first: " + all);
        assertEquals("admin", item(admin.http().get(LIST + "?owner=admin").json(), mine).path("owner").asText());
    }

    @Test
    void anotherKeysIdAsTheCursorIsTheUnknownIdsError() throws Exception {
        var alice = key();
        var bob = key();
        var hers = alice.create("{\"input\":\"hi\"}");
        var unknown = bob.list("after=resp_nobody");
        assertEquals(400, unknown.status(), unknown.body());
        assertEquals("{\"message\":\"Invalid 'after': no stored response resp_nobody\",\"type\":\"invalid_request_error\","
                + "\"param\":\"after\",\"code\":\"invalid_after\"}", unknown.error().toString());
        var other = bob.list("after=" + hers);
        assertEquals(400, other.status(), other.body());
        var expected = (ObjectNode) unknown.error().deepCopy();
        expected.put("message", expected.path("message").asText().replace("resp_nobody", hers));
        assertEquals(expected, other.error());
        assertEquals(200, admin.http().get(LIST + "?after=" + hers).status(), "the admin key sees it");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "101", "-1", "1.5", "abc", "", "1e2", "%20"})
    void aBadLimitIsInvalidLimit(String limit) {
        var k = key();
        var answer = k.list("limit=" + limit);
        assertEquals(400, answer.status(), answer.body());
        assertEquals("invalid_limit", answer.error().path("code").asText(), answer.body());
        assertEquals("limit", answer.error().path("param").asText(), answer.body());
    }

    @Test
    void withoutAValidKeyIts401AndAKeyWithoutTheFamilyGetsTheUnknownRoute() {
        for (var client : List.of(admin.http().withoutKey(), admin.http().withKey("cdk_wrong"))) {
            var answer = client.get(LIST);
            assertEquals(401, answer.status(), answer.body());
            assertEquals("gateway_auth_failed", answer.error().path("code").asText(), answer.body());
        }
        var chatOnly = admin.host.http().withKey(admin.host.addKey("chatonly" + KEYS.incrementAndGet(), "chat"));
        var refused = chatOnly.get(LIST);
        assertEquals(404, refused.status(), refused.body());
        assertEquals("not_found", refused.error().path("code").asText(), refused.body());
    }
}
