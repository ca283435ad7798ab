package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.message.Message;
import dev.caduceus.platform.testkit.HostClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET /v1/responses/{id}/input_items} on the real host: shapes, chains, paging, order and the
 * 400/404 answers.
 */
class InputItemsTest {
    private static ResponsesHost api;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
    }

    private static String create(String body) throws Exception {
        if (body.contains("\"stream\":true")) return api.stream(body).getFirst().data().get("response").get("id").asText();
        var ex = api.post(body);
        assertEquals(200, ex.status(), ex.body());
        return ex.json().get("id").asText();
    }

    /** Runs {@code sql} (with {@code args}) on the host's database, as a process killed mid-way or an old version left it. */
    private static void sql(String sql, String... args) throws Exception {
        try (var db = java.sql.DriverManager.getConnection("jdbc:sqlite:" + api.host.home().resolve("caduceus.db"));
             var statement = db.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) statement.setString(i + 1, args[i]);
            statement.executeUpdate();
        }
    }

    private static String hex(String id) {
        return id.substring("resp_".length());
    }

    private static void assertError(HostClient.Response ex, int status, String code, String param) {
        assertEquals(status, ex.status(), ex::body);
        var error = ex.error();
        assertEquals(code, error.get("code").asText());
        assertEquals("invalid_request_error", error.get("type").asText());
        assertFalse(error.get("message").asText().isBlank());
        if (param != null) assertEquals(param, error.get("param").asText());
    }

    @Test
    void oneTurnListsItsInputMessagesNewestFirstInOpenAisShape() throws Exception {
        api.answers("ok");
        var id = create("""
                {"input":[{"role":"system","content":"be brief"},
                  {"role":"user","content":[{"type":"input_text","text":"what is this?"},
                    {"type":"input_image","image_url":"https://example.com/a.png"}]}]}""");
        var ex = api.inputItems(id);
        assertEquals(200, ex.status());
        var h = hex(id);
        assertEquals("{\"object\":\"list\",\"data\":["
                + "{\"id\":\"msg_" + h + "_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"what is this?\"},"
                + "{\"type\":\"input_image\",\"image_url\":\"https://example.com/a.png\",\"detail\":\"auto\"}]},"
                + "{\"id\":\"msg_" + h + "_0\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"system\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"be brief\"}]}],"
                + "\"first_id\":\"msg_" + h + "_1\",\"last_id\":\"msg_" + h + "_0\",\"has_more\":false}",
                ex.json().toString());
        assertEquals(ex.json().toString(), api.inputItems(id).json().toString(), "ids are stable");
    }

    @Test
    void aChainedTurnListsTheHistoryItUsedWithToolItemsButNotItsOwnOutput() throws Exception {
        api.answersWithTool();
        var first = create("{\"input\":\"what is here?\"}");
        api.answers("fine");
        var second = create("{\"input\":\"and now?\",\"previous_response_id\":\"" + first + "\"}");
        var items = api.inputItems(second, "order", "asc").json().get("data");
        var h = hex(second);
        // The run's transcript: the text that came with the call is a message of its own before the call.
        assertEquals(List.of("msg_" + h + "_0", "msg_" + h + "_1", "fc_" + h + "_2", "fco_" + h + "_3", "msg_" + h + "_4",
                "msg_" + h + "_5"), ids(items));
        assertEquals("user", items.get(0).get("role").asText());
        assertEquals("what is here?", items.get(0).at("/content/0/text").asText());
        assertEquals("assistant", items.get(1).get("role").asText());
        assertEquals("Let me look.", items.get(1).at("/content/0/text").asText());
        assertEquals("{\"id\":\"fc_" + h + "_2\",\"type\":\"function_call\",\"status\":\"completed\",\"name\":\"terminal\","
                + "\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\",\"call_id\":\"call_1\"}", items.get(2).toString());
        assertEquals("{\"id\":\"fco_" + h + "_3\",\"type\":\"function_call_output\",\"status\":\"completed\","
                + "\"call_id\":\"call_1\",\"output\":" + ResponsesHost.JSON.writeValueAsString(ResponsesHost.UNKNOWN_TERMINAL)
                + "}", items.get(3).toString());
        assertEquals("assistant", items.get(4).get("role").asText());
        assertEquals("output_text", items.get(4).at("/content/0/type").asText());
        assertEquals("There are 2 entries.", items.get(4).at("/content/0/text").asText());
        assertEquals("and now?", items.get(5).at("/content/0/text").asText());
        // the first turn's own list holds only its input, not the tool items its run produced
        assertEquals(List.of("msg_" + hex(first) + "_0"), ids(api.inputItems(first).json().get("data")));
    }

    @Test
    void explicitHistoryAndAStreamedTurnAreListedToo() throws Exception {
        api.answers("ok");
        var id = create("""
                {"input":"third","stream":true,"conversation_history":[
                  {"role":"user","content":"first"},{"role":"assistant","content":"second"}]}""");
        var items = api.inputItems(id, "order", "asc").json().get("data");
        assertEquals(List.of("user:first", "assistant:second", "user:third"), roleTexts(items));
    }

    @Test
    void pagesWithAfterAndHasMoreCoverTheListOnceInEitherOrder() throws Exception {
        var id = longChain(7); // 7 turns: 13 items in the last turn's list
        var all = ids(api.inputItems(id, "order", "asc", "limit", "100").json().get("data"));
        assertEquals(13, all.size());
        for (var order : List.of("asc", "desc")) {
            var seen = new ArrayList<String>();
            String after = null;
            int pages = 0;
            while (true) {
                var ex = after == null ? api.inputItems(id, "order", order, "limit", "5")
                        : api.inputItems(id, "order", order, "limit", "5", "after", after);
                var body = ex.json();
                var page = ids(body.get("data"));
                assertEquals(page.getFirst(), body.get("first_id").asText());
                assertEquals(page.getLast(), body.get("last_id").asText());
                seen.addAll(page);
                pages++;
                if (!body.get("has_more").asBoolean()) break;
                assertEquals(5, page.size());
                after = body.get("last_id").asText();
            }
            assertEquals(3, pages);
            var expected = new ArrayList<>(all);
            if (order.equals("desc")) java.util.Collections.reverse(expected);
            assertEquals(expected, seen, order);
        }
        var last = all.getLast();
        var empty = api.inputItems(id, "order", "asc", "after", last).json();
        assertEquals("{\"object\":\"list\",\"data\":[],\"first_id\":null,\"last_id\":null,\"has_more\":false}",
                empty.toString());
    }

    @Test
    void defaultsAreTwentyNewestFirst() throws Exception {
        var id = longChain(12); // 23 items
        var body = api.inputItems(id).json();
        var page = ids(body.get("data"));
        assertEquals(20, page.size());
        assertTrue(body.get("has_more").asBoolean());
        assertEquals("msg_" + hex(id) + "_22", page.getFirst());
        assertEquals("msg_" + hex(id) + "_3", page.getLast());
        assertEquals("user:t11", roleTexts(body.get("data")).getFirst());
        var before = api.inputItems(id, "order", "asc", "before", "msg_" + hex(id) + "_2").json();
        assertEquals(List.of("msg_" + hex(id) + "_0", "msg_" + hex(id) + "_1"), ids(before.get("data")));
        assertFalse(before.get("has_more").asBoolean());
    }

    @Test
    void unknownRemovedOrUnstoredResponsesAre404AsOnGet() throws Exception {
        assertError(api.inputItems("resp_nope"), 404, "response_not_found", null);
        assertEquals("Response not found: resp_nope", api.inputItems("resp_nope").json().at("/error/message").asText());
        api.answers("ok");
        var unstored = create("{\"input\":\"x\",\"store\":false}");
        assertError(api.inputItems(unstored), 404, "response_not_found", null);
        api.answers("ok");
        var deleted = create("{\"input\":\"x\"}");
        assertEquals(200, api.delete(deleted).status());
        assertError(api.inputItems(deleted), 404, "response_not_found", null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "101", "-1", "abc", "2.5", "", "1000"})
    void aBadLimitIs400(String limit) throws Exception {
        assertError(api.inputItems("resp_whatever", "limit", limit), 400, "invalid_limit", "limit");
    }

    @Test
    void limitsAtTheEdgesAreFine() throws Exception {
        var id = longChain(1);
        assertEquals(1, api.inputItems(id, "limit", "1").json().get("data").size());
        assertEquals(200, api.inputItems(id, "limit", "100").status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"up", "", "ascending", "1"})
    void aBadOrderIs400(String order) throws Exception {
        assertError(api.inputItems("resp_whatever", "order", order), 400, "invalid_order", "order");
    }

    @Test
    void anAfterThatIsNotAnItemOfThisListIs400() throws Exception {
        var a = longChain(1);
        var b = longChain(1);
        assertError(api.inputItems(a, "after", "msg_nope_0"), 400, "invalid_after", "after");
        assertError(api.inputItems(a, "after", "msg_" + hex(b) + "_0"), 400, "invalid_after", "after");
        assertError(api.inputItems(a, "before", "msg_nope_0"), 400, "invalid_before", "before");
    }

    @Test
    void aRowStoredBeforeTheInputEndWasRecordedEndsAtItsLastNonAssistantMessage() throws Exception {
        api.answersWithTool();
        var id = create("{\"input\":\"look\"}");
        sql("UPDATE responses SET input_seq = NULL WHERE id = ?", id);
        assertEquals(List.of("user:look"), roleTexts(api.inputItems(id).json().get("data")));
        // a V1 row: the whole transcript in its own column
        var transcript = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
                List.of(Message.user("old"), Message.assistant("reply"), Message.user("new"), Message.assistant("ok")));
        sql("""
                UPDATE responses SET chain_id = NULL, base_seq = NULL, last_seq = NULL, transcript = ?
                WHERE id = ?""", transcript, id);
        assertEquals(List.of("user:old", "assistant:reply", "user:new"),
                roleTexts(api.inputItems(id, "order", "asc").json().get("data")));
    }

    /** {@code turns} chained turns t0, t1, …; returns the last response id. */
    private static String longChain(int turns) throws Exception {
        String previous = null;
        for (int i = 0; i < turns; i++) {
            api.answers("a" + i);
            previous = create(previous == null ? "{\"input\":\"t" + i + "\"}"
                    : "{\"input\":\"t" + i + "\",\"previous_response_id\":\"" + previous + "\"}");
        }
        return previous;
    }

    private static List<String> ids(JsonNode data) {
        var ids = new ArrayList<String>();
        data.forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }

    private static List<String> roleTexts(JsonNode data) {
        var out = new ArrayList<String>();
        data.forEach(item -> out.add(item.get("role").asText() + ":" + item.at("/content/0/text").asText()));
        return out;
    }
}
