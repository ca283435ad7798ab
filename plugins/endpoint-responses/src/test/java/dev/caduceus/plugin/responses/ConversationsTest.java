package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
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
 * The {@code conversations} family on the real host and store: {@code GET /api/conversations} (names,
 * heads, times, chain lengths, newest first) and {@code DELETE /api/conversations/{name}} (the name,
 * its chain's responses and their journals; branches off the chain stay whole), per key as the
 * responses are. The host is shared; each test works through keys of its own. Every model answer is
 * "ok" unless a test queues others.
 */
class ConversationsTest {
    static final String PATH = "/api/conversations";
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

    static Key key() {
        var name = "conv" + KEYS.incrementAndGet();
        return new Key(name, admin.as(admin.host.addKey(name)));
    }

    record Key(String name, ResponsesHost host) {
        String turn(String conversation, String input) throws Exception {
            return host.create("{\"input\":\"" + input + "\",\"conversation\":\"" + conversation + "\"}");
        }

        JsonNode list(String query) {
            var answer = host.http().get(PATH + query);
            assertEquals(200, answer.status(), answer.body());
            return answer.json().path("conversations");
        }

        HostClient.Response delete(String name) {
            return host.http().delete(PATH + "/" + encode(name));
        }
    }

    /** {@code name} as one path segment: UTF-8, percent-encoded ({@code %20}, not {@code +}). */
    static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static List<String> names(JsonNode list) {
        var names = new ArrayList<String>();
        list.forEach(c -> names.add(c.path("name").asText()));
        return names;
    }

    static JsonNode entry(JsonNode list, String name) {
        for (var c : list) if (c.path("name").asText().equals(name)) return c;
        throw new AssertionError("no conversation " + name + " in " + list);
    }

    @Test
    void listsNamesWithTheirLatestResponseAndTurnsMostRecentlyUpdatedFirst() throws Exception {
        var k = key();
        k.turn("a", "a one");
        k.turn("a", "a two");
        k.turn("b", "b one");
        k.turn("b", "b two");
        var b3 = k.turn("b", "b three");
        var a3 = k.turn("a", "a three");
        var answer = k.host().http().get(PATH);
        assertEquals(200, answer.status(), answer.body());
        var keys = new ArrayList<String>();
        answer.json().fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("conversations", "conversation_objects"), keys);
        assertEquals(0, answer.json().path("conversation_objects").size(), "no Conversations API objects here");
        var list = answer.json().path("conversations");
        assertEquals(List.of("a", "b"), names(list));
        var a = entry(list, "a");
        var fields = new ArrayList<String>();
        a.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("name", "response_id", "updated_at", "turns", "owner"), fields);
        assertEquals(a3, a.path("response_id").asText());
        assertEquals(k.host().get(a3).json().path("created_at").asLong(), a.path("updated_at").asLong());
        assertEquals(3, a.path("turns").asInt());
        assertEquals(k.name(), a.path("owner").asText());
        assertEquals(b3, entry(list, "b").path("response_id").asText());
        assertEquals(3, entry(list, "b").path("turns").asInt());
        assertEquals(List.of("a"), names(k.list("?limit=1")));
    }

    @Test
    void deleteRemovesTheNameItsChainAndTheirJournalsButNotABranch() throws Exception {
        var k = key();
        var d1 = k.host().create("{\"input\":\"d one\",\"conversation\":\"d\",\"stream\":true}");
        var d2 = k.host().create("{\"input\":\"d two\",\"conversation\":\"d\",\"stream\":true}");
        var d3 = k.turn("d", "d three");
        var branch = k.host().create("{\"input\":\"aside\",\"previous_response_id\":\"" + d1 + "\"}");
        var keep = k.turn("keep", "kept");
        assertTrue(journal(d1) > 0 && journal(d2) > 0, "the streamed turns have journals");

        var answer = k.delete("d");
        assertEquals(200, answer.status(), answer.body());
        assertEquals("{\"deleted\":true,\"name\":\"d\",\"responses_deleted\":3}", answer.body());
        for (var id : List.of(d1, d2, d3)) {
            assertEquals(404, k.host().get(id).status(), id);
            assertEquals(0, journal(id), id);
        }
        assertEquals(List.of(), admin.rows("SELECT name FROM conversations WHERE owner = ? AND name = 'd'", k.name()));
        assertEquals(List.of("keep"), names(k.list("")));
        assertEquals(200, k.host().get(keep).status());

        assertEquals(200, k.host().get(branch).status(), "a response that continued the chain elsewhere stays");
        k.host().create("{\"input\":\"more\",\"previous_response_id\":\"" + branch + "\"}");
        assertEquals("user:d one|assistant:ok|user:aside|assistant:ok|user:more|", admin.lastModelTexts(),
                "and keeps its whole transcript");

        k.turn("d", "d anew");
        assertEquals("user:d anew|", admin.lastModelTexts(), "the name starts a new conversation");
        assertEquals(1, entry(k.list(""), "d").path("turns").asInt());
    }

    @Test
    void anUnknownNameIsTheContractsNotFound() throws Exception {
        var k = key();
        var answer = k.delete("nope");
        assertEquals(404, answer.status(), answer.body());
        assertEquals("{\"message\":\"Conversation not found: nope\",\"type\":\"invalid_request_error\",\"param\":null,"
                + "\"code\":\"conversation_not_found\"}", answer.error().toString());
        k.turn("once", "hi");
        assertEquals(200, k.delete("once").status());
        assertEquals(404, k.delete("once").status(), "deleted already");
    }

    @ParameterizedTest
    @ValueSource(strings = {"with space", "Grüße & co?", "a+b=c;d", "#hash"})
    void namesAreOnePathSegmentPercentEncoded(String name) throws Exception {
        var k = key();
        var json = name.replace("\\", "\\\\").replace("\"", "\\\"");
        k.turn(json, "hi");
        assertEquals(List.of(name), names(k.list("")));
        var answer = k.delete(name);
        assertEquals(200, answer.status(), answer.body());
        assertEquals(name, answer.json().path("name").asText());
        assertEquals(1, answer.json().path("responses_deleted").asInt());
        assertEquals(List.of(), names(k.list("")));
    }

    @Test
    void aNameWithAPercentOrASlashCannotBeAddressedAsAPathSegment() throws Exception {
        var k = key();
        for (var name : List.of("100%", "a/b")) {
            k.turn(name, "hi");
            var answer = k.delete(name); // %25 and %2F: the host's ambiguous-path 400, before any handler
            assertEquals(400, answer.status(), answer.body());
            assertEquals("invalid_path", answer.error().path("code").asText(), answer.body());
        }
        assertEquals(List.of("100%", "a/b"), names(k.list("")).stream().sorted().toList(), "both still there");
    }

    @Test
    void removingAMiddleTurnKeepsTheRestOfTheChain() throws Exception {
        var k = key();
        var m1 = k.turn("m", "m one");
        var m2 = k.turn("m", "m two");
        var m3 = k.turn("m", "m three");
        assertEquals(200, k.host().delete(m2).status());
        assertEquals(2, entry(k.list(""), "m").path("turns").asInt());
        assertEquals(List.of(m3, m1), ResponseListTest.ids(k.host().http().get("/v1/responses?conversation=m").json()));
        var answer = k.delete("m");
        assertEquals("{\"deleted\":true,\"name\":\"m\",\"responses_deleted\":2}", answer.body());
        assertEquals(404, k.host().get(m1).status());
    }

    @Test
    void namesArePerKeyAndTheAdminKeyReachesAnyKeysWithOwner() throws Exception {
        var alice = key();
        var bob = key();
        var hers = alice.turn("same", "alice's");
        var his = bob.turn("same", "bob's");
        var only = alice.turn("hers-only", "alice's too");
        assertEquals(List.of("hers-only", "same"), names(alice.list("")));
        assertEquals(List.of("same"), names(bob.list("")));
        assertEquals(List.of("same"), names(bob.list("?owner=" + alice.name())), "?owner= is ignored for a named key");

        assertEquals(404, bob.delete("hers-only").status(), "another key's name does not exist for bob");
        assertEquals(404, bob.host().http().delete(PATH + "/hers-only?owner=" + alice.name()).status());
        assertEquals(200, alice.host().get(only).status());
        assertEquals(200, bob.delete("same").status());
        assertEquals(404, bob.host().get(his).status());
        assertEquals(200, alice.host().get(hers).status(), "bob's 'same' was bob's own");

        var all = admin.http().get(PATH + "?limit=100").json().path("conversations");
        var owners = new ArrayList<String>();
        all.forEach(c -> { if (c.path("name").asText().equals("same")) owners.add(c.path("owner").asText()); });
        assertEquals(List.of(alice.name()), owners);
        assertEquals(List.of("hers-only", "same"), names(admin.http().get(PATH + "?owner=" + alice.name()).json()
                .path("conversations")));
        assertEquals(404, admin.http().delete(PATH + "/same").status(), "the admin key's own names are its own");
        var deleted = admin.http().delete(PATH + "/same?owner=" + alice.name());
        assertEquals(200, deleted.status(), deleted.body());
        assertEquals(404, alice.host().get(hers).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "101", "abc", "-5", ""})
    void aBadLimitIsInvalidLimit(String limit) {
        var answer = key().host().http().get(PATH + "?limit=" + limit);
        assertEquals(400, answer.status(), answer.body());
        assertEquals("invalid_limit", answer.error().path("code").asText(), answer.body());
    }

    @Test
    void withoutAValidKeyBothRoutesAre401AndTheFamilyIsPartOfAKeysPolicy() throws Exception {
        for (var client : List.of(admin.http().withoutKey(), admin.http().withKey("cdk_wrong"))) {
            for (var answer : List.of(client.get(PATH), client.delete(PATH + "/x"))) {
                assertEquals(401, answer.status(), answer.body());
                assertEquals("gateway_auth_failed", answer.error().path("code").asText(), answer.body());
            }
        }
        var responsesOnly = admin.http().withKey(admin.host.addKey("responsesonly", "responses"));
        assertEquals(200, responsesOnly.get("/v1/responses").status());
        assertEquals("not_found", responsesOnly.get(PATH).error().path("code").asText());
        assertEquals(404, responsesOnly.delete(PATH + "/x").status());
        var both = admin.http().withKey(admin.host.addKey("both", "responses", "conversations"));
        assertEquals(200, both.get(PATH).status());
    }

    @Test
    void capabilitiesListBothFamiliesRoutes() {
        try (var upstream = ScriptedUpstream.start();
             var host = TestHost.builder().plugins("endpoint-responses", "endpoint-capabilities", "provider-openai")
                     .model(upstream).start()) {
            var endpoints = host.http().get("/v1/capabilities").json().path("endpoints");
            assertEquals("{\"method\":\"GET\",\"path\":\"/v1/responses\"}", endpoints.path("response_list").toString());
            assertEquals("{\"method\":\"GET\",\"path\":\"/api/conversations\"}",
                    endpoints.path("conversation_list").toString());
            assertEquals("{\"method\":\"DELETE\",\"path\":\"/api/conversations/{name}\"}",
                    endpoints.path("conversation_delete").toString());
        }
    }

    private static int journal(String id) throws Exception {
        return Integer.parseInt(admin.rows("SELECT COUNT(*) FROM response_events WHERE response_id = ?", id).getFirst());
    }
}
