package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.HostClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's Conversations API (issue 43) on the real host: create with items and metadata, read, update, delete,
 * items listed in pages, added, read and deleted one by one; {@code conversation: "conv_…"} (or {@code {"id": …}}) on
 * {@code POST /v1/responses} sends the conversation's items as history and adds the turn's input and output when it
 * completes; another key's conversation is an unknown one everywhere; every bad body is a 400 naming its field.
 */
class ConversationObjectsTest {
    static final String PATH = "/v1/conversations";
    static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    @Test
    void aConversationIsCreatedReadUpdatedAndDeleted() throws Exception {
        var created = post(PATH, "{\"metadata\":{\"topic\":\"demo\"},\"items\":[{\"type\":\"message\",\"role\":\"user\","
                + "\"content\":\"Hello!\"}]}");
        assertEquals(200, created.status(), created.body());
        var conversation = created.json();
        var id = conversation.get("id").asText();
        assertTrue(id.startsWith("conv_"), id);
        assertEquals("conversation", conversation.get("object").asText());
        assertEquals("demo", conversation.get("metadata").get("topic").asText());
        assertTrue(conversation.get("created_at").asLong() > 0);
        assertEquals(conversation, get(PATH + "/" + id).json());

        var updated = post(PATH + "/" + id, "{\"metadata\":{\"topic\":\"changed\"}}");
        assertEquals(200, updated.status(), updated.body());
        assertEquals("changed", get(PATH + "/" + id).json().get("metadata").get("topic").asText());

        var empty = api.http().post(PATH, "");
        assertEquals(200, empty.status(), "a create without a body: " + empty.body());
        assertEquals(0, empty.json().get("metadata").size());

        var deleted = api.http().delete(PATH + "/" + id);
        assertEquals(200, deleted.status());
        assertEquals("{\"id\":\"" + id + "\",\"object\":\"conversation.deleted\",\"deleted\":true}", deleted.body());
        assertEquals(404, get(PATH + "/" + id).status());
        assertEquals("conversation_not_found", get(PATH + "/" + id).json().get("error").get("code").asText());
        assertEquals(404, api.http().delete(PATH + "/" + id).status());
    }

    @Test
    void itemsAreListedInPagesAddedReadAndDeleted() throws Exception {
        var id = create("{\"items\":[" + messages(1, 3) + "]}");
        var added = post(PATH + "/" + id + "/items", "{\"items\":[" + messages(4, 5) + ",{\"type\":\"function_call\","
                + "\"call_id\":\"call_1\",\"name\":\"lookup\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\","
                + "\"call_id\":\"call_1\",\"output\":\"found\"}]}");
        assertEquals(200, added.status(), added.body());
        assertEquals("list", added.json().get("object").asText());
        assertEquals(4, added.json().get("data").size());
        assertEquals("input_text", added.json().get("data").get(0).get("content").get(0).get("type").asText());

        var texts = new ArrayList<String>();
        String after = null;
        do { // oldest first, two at a time, each page after the last id of the one before
            var page = get(PATH + "/" + id + "/items?order=asc&limit=2" + (after == null ? "" : "&after=" + after)).json();
            for (var item : page.get("data")) texts.add(item.path("content").path(0).path("text").asText(item.path("type").asText()));
            after = page.get("has_more").asBoolean() ? page.get("last_id").asText() : null;
        } while (after != null);
        assertEquals(List.of("m1", "m2", "m3", "m4", "m5", "function_call", "function_call_output"), texts);
        var newest = get(PATH + "/" + id + "/items?limit=1").json();
        assertEquals("function_call_output", newest.get("data").get(0).get("type").asText(), "newest first by default");

        var itemId = added.json().get("data").get(0).get("id").asText();
        var item = get(PATH + "/" + id + "/items/" + itemId);
        assertEquals(200, item.status());
        assertEquals("m4", item.json().get("content").get(0).get("text").asText());
        var afterDelete = api.http().delete(PATH + "/" + id + "/items/" + itemId);
        assertEquals(200, afterDelete.status());
        assertEquals(id, afterDelete.json().get("id").asText(), "answers the conversation");
        assertEquals(404, get(PATH + "/" + id + "/items/" + itemId).status());
        assertEquals(6, get(PATH + "/" + id + "/items?limit=100").json().get("data").size());
        assertEquals(400, get(PATH + "/" + id + "/items?after=msg_nope").status());
    }

    @Test
    void aResponseInAConversationSeesItsItemsAndAddsItsTurn() throws Exception {
        var id = create("{\"items\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"My name is Ana.\"},"
                + "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Hello Ana.\"}]}");
        api.answers("Your name is Ana.");
        var first = api.post("{\"input\":\"What is my name?\",\"conversation\":\"" + id + "\"}");
        assertEquals(200, first.status(), first.body());
        var sent = api.upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sent.contains("My name is Ana.") && sent.contains("Hello Ana.") && sent.contains("What is my name?"), sent);

        var items = get(PATH + "/" + id + "/items?order=asc").json().get("data");
        assertEquals(4, items.size(), items.toString());
        assertEquals("What is my name?", items.get(2).get("content").get(0).get("text").asText());
        assertEquals("Your name is Ana.", items.get(3).get("content").get(0).get("text").asText());
        assertEquals(first.json().get("output").get(0).get("id"), items.get(3).get("id"), "the output item as the response lists it");
        assertEquals(id, first.json().get("conversation").get("id").asText(), "the response names its conversation");

        api.answers("Still Ana.");
        var second = api.post("{\"input\":\"And now?\",\"conversation\":{\"id\":\"" + id + "\"}}");
        assertEquals(200, second.status(), second.body());
        var sentAgain = api.upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sentAgain.contains("Your name is Ana.") && sentAgain.contains("And now?"), sentAgain);
        assertEquals(6, get(PATH + "/" + id + "/items").json().get("data").size());
    }

    @Test
    void theConsolesListShowsConversationObjectsOfTheCallerBesideTheNames() throws Exception {
        var mine = create("{\"metadata\":{\"topic\":\"listed\"},\"items\":[" + messages(1, 2) + "]}");
        var key = api.host.addKey("lister");
        var theirs = api.as(key).http().post(PATH, "{}").json().get("id").asText();
        var all = get("/api/conversations").json().get("conversation_objects");
        var listed = new ArrayList<String>();
        all.forEach(o -> listed.add(o.get("id").asText()));
        assertTrue(listed.contains(mine) && listed.contains(theirs), "the admin key sees every key's: " + all);
        for (var o : all)
            if (o.get("id").asText().equals(mine)) {
                assertEquals(2, o.get("items").asInt());
                assertEquals("listed", o.get("metadata").get("topic").asText());
            }
        var own = api.as(key).http().get("/api/conversations").json().get("conversation_objects");
        assertEquals(1, own.size(), own.toString());
        assertEquals(theirs, own.get(0).get("id").asText(), "a named key sees its own only");
    }

    @Test
    void anotherKeysConversationIsUnknownEverywhere() throws Exception {
        var id = create("{\"items\":[" + messages(1, 1) + "]}");
        var other = api.as(api.host.addKey("mallory")).http();
        assertEquals(404, other.get(PATH + "/" + id).status());
        assertEquals(404, other.post(PATH + "/" + id, "{\"metadata\":{}}").status());
        assertEquals(404, other.get(PATH + "/" + id + "/items").status());
        assertEquals(404, other.post(PATH + "/" + id + "/items", "{\"items\":[" + messages(2, 2) + "]}").status());
        assertEquals(404, other.delete(PATH + "/" + id).status());
        var turn = other.post(ResponsesHost.PATH, "{\"input\":\"read it\",\"conversation\":\"" + id + "\"}");
        assertEquals(404, turn.status(), turn.body());
        assertEquals("conversation_not_found", turn.json().get("error").get("code").asText());
        assertEquals(1, get(PATH + "/" + id + "/items").json().get("data").size(), "nothing was added");
        assertEquals(404, get(PATH + "/conv_unknown").status());
    }

    @Test
    void badBodiesAreA400NamingTheField() throws Exception {
        assertBad(post(PATH, "{not json"), "invalid_json", null);
        assertBad(post(PATH, "{\"items\":\"hello\"}"), "invalid_type", "items");
        assertBad(post(PATH, "{\"metadata\":[1]}"), "invalid_type", "metadata");
        assertBad(post(PATH, "{\"metadata\":{\"n\":1}}"), "invalid_value", "metadata.n");
        var tooMany = new StringBuilder("{\"metadata\":{");
        for (int i = 0; i < 17; i++) tooMany.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
        assertBad(post(PATH, tooMany + "}}"), "invalid_value", "metadata");
        assertBad(post(PATH, "{\"items\":[" + messages(1, 21) + "]}"), "array_above_max_length", "items");
        assertBad(post(PATH, "{\"items\":[{\"type\":\"message\",\"content\":\"x\"}]}"), "invalid_value", "items[0].role");
        assertBad(post(PATH, "{\"items\":[{\"type\":\"message\",\"role\":\"user\"}]}"), "missing_required_parameter",
                "items[0].content");
        assertBad(post(PATH, "{\"items\":[{\"type\":\"teleport\"}]}"), "invalid_value", "items[0].type");
        assertBad(post(PATH, "{\"items\":[{\"type\":\"function_call\",\"name\":\"f\",\"arguments\":\"{}\"}]}"),
                "missing_required_parameter", "items[0].call_id");
        var id = create("{}");
        assertBad(post(PATH + "/" + id + "/items", "{}"), "missing_required_parameter", "items");
        assertBad(post(PATH + "/" + id, "{}"), "missing_required_parameter", "metadata");
        assertEquals(0, get(PATH + "/" + id + "/items").json().get("data").size(), "nothing was added");
        var noKey = api.host.http().withKey("wrong-key-wrong-key-wrong-key-00").get(PATH + "/" + id);
        assertEquals(401, noKey.status());
        assertFalse(noKey.body().contains("<html"));
    }

    private static String create(String body) throws Exception {
        var created = post(PATH, body);
        assertEquals(200, created.status(), created.body());
        return created.json().get("id").asText();
    }

    /** User messages m{from}…m{to} as items. */
    private static String messages(int from, int to) {
        var sb = new StringBuilder();
        for (int i = from; i <= to; i++)
            sb.append(i == from ? "" : ",").append("{\"type\":\"message\",\"role\":\"user\",\"content\":\"m").append(i).append("\"}");
        return sb.toString();
    }

    private static HostClient.Response post(String path, String body) {
        return api.http().post(path, body);
    }

    private static HostClient.Response get(String path) {
        return api.http().get(path);
    }

    private static void assertBad(HostClient.Response response, String code, String param) throws Exception {
        assertEquals(400, response.status(), response.body());
        JsonNode error = response.json().get("error");
        assertEquals(code, error.get("code").asText(), response.body());
        if (param != null) assertEquals(param, error.get("param").asText(), response.body());
    }
}
