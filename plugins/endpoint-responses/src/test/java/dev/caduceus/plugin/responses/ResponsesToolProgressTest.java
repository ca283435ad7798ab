package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code chat.tool_progress: reasoning} on a Responses stream, on the real host: each tool step as a
 * reasoning summary. The tool called is one no plugin offers, so its step ends {@code ✗}; durations
 * are the real ones, compared as {@code N.N}.
 */
class ResponsesToolProgressTest {
    private static final String STREAM = "{\"input\":\"what is here?\",\"stream\":true}";

    private static ResponsesHost api;
    private static ResponsesHost plain;

    @BeforeAll
    static void boot() {
        api = ResponsesHost.start("CADUCEUS__CHAT__TOOL_PROGRESS", "reasoning");
        plain = ResponsesHost.start();
    }

    @AfterAll
    static void shutDown() {
        if (api != null) api.close();
        if (plain != null) plain.close();
    }

    @BeforeEach
    void reset() {
        api.reset();
        plain.reset();
    }

    private static String steps(String text) {
        return text.replaceAll("([✓✗]) \\d+\\.\\d s", "$1 N.N s");
    }

    @Test
    void reasoningAddsASummarisedReasoningItemPerToolStep() throws Exception {
        api.answersWithTool();
        var stream = api.stream(STREAM);
        assertEquals(List.of("response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                "response.output_item.added", "response.reasoning_summary_part.added",
                "response.reasoning_summary_text.delta",
                "response.output_item.added",
                "response.output_item.done",
                "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
                "response.reasoning_summary_part.done", "response.output_item.done",
                "response.output_text.delta", "response.output_text.done", "response.content_part.done",
                "response.output_item.done", "response.completed"), ResponsesHost.names(stream));
        var data = ResponsesHost.data(stream);
        var added = data.get(5);
        assertEquals(1, added.get("output_index").asInt());
        var id = added.at("/item/id").asText();
        assertTrue(id.matches("rs_[0-9a-f]{24}"), id);
        assertEquals("{\"id\":\"" + id + "\",\"type\":\"reasoning\",\"summary\":[]}", added.get("item").toString());
        assertEquals("{\"type\":\"response.reasoning_summary_part.added\",\"item_id\":\"" + id + "\",\"output_index\":1,"
                + "\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"\"},\"sequence_number\":6}",
                data.get(6).toString());
        assertEquals("💻 terminal: ls\n", data.get(7).get("delta").asText());
        assertEquals(2, data.get(8).get("output_index").asInt(), "the mcp_call follows its step");
        assertEquals("mcp_call", data.get(8).at("/item/type").asText());
        assertEquals("✗ N.N s\n\n", steps(data.get(10).get("delta").asText()));
        assertEquals("💻 terminal: ls\n✗ N.N s\n\n", steps(data.get(11).get("text").asText()));
        assertEquals("{\"id\":\"" + id + "\",\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
                + "\"text\":\"💻 terminal: ls\\n✗ N.N s\\n\\n\"}]}", steps(data.get(13).get("item").toString()));
        var completed = data.getLast().get("response");
        assertEquals(List.of("reasoning", "mcp_call", "message"), types(completed.get("output")));
        assertEquals("Let me look.There are 2 entries.", completed.at("/output/2/content/0/text").asText());
        // stored as sent, and a replay without the journal synthesizes the same summary
        var stored = api.get(completed.get("id").asText()).json();
        assertEquals(types(completed.get("output")), types(stored.get("output")));
        // the transcript holds no progress text
        api.answers("ok");
        api.post("{\"input\":\"next\",\"previous_response_id\":\"" + completed.get("id").asText() + "\"}");
        assertTrue(api.lastModelTexts().indexOf("✗") < 0, api.lastModelTexts());
    }

    @Test
    void theHeaderChoosesReasoningOrNotAndTheDefaultAddsNothing() throws Exception {
        plain.answersWithTool();
        assertEquals(12, plain.stream(STREAM).size(), "comments by default: no reasoning");
        plain.answersWithTool();
        assertTrue(ResponsesHost.names(plain.stream(STREAM, "X-Hermes-Tool-Progress", "reasoning"))
                .contains("response.reasoning_summary_text.delta"));
        api.answersWithTool();
        assertEquals(12, api.stream(STREAM, "X-Hermes-Tool-Progress", "events").size());
        api.answersWithTool();
        assertEquals(12, api.stream(STREAM, "X-Hermes-Tool-Progress", "false").size());
        api.answersWithTool();
        assertEquals(19, api.stream(STREAM, "X-Hermes-Tool-Progress", "bogus").size());
    }

    @Test
    void replayOfAStoredReasoningItemSynthesizesItsSummaryEvents() throws Exception {
        api.answersWithTool();
        var data = ResponsesHost.data(api.stream(STREAM));
        var id = data.getFirst().at("/response/id").asText();
        // The journal expired (as after responses.event_retention_hours): the replay is synthesized.
        try (var sql = java.sql.DriverManager.getConnection("jdbc:sqlite:" + api.host.home().resolve("caduceus.db"));
             var delete = sql.prepareStatement("DELETE FROM response_events WHERE response_id = ?")) {
            delete.setString(1, id);
            delete.executeUpdate();
        }
        var replay = api.replay(id, "stream", "true");
        var names = ResponsesHost.names(replay);
        assertTrue(names.containsAll(List.of("response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.done", "response.reasoning_summary_part.done")), names.toString());
        var delta = ResponsesHost.data(replay).stream()
                .filter(d -> d.get("type").asText().equals("response.reasoning_summary_text.delta")).findFirst().orElseThrow();
        assertEquals("💻 terminal: ls\n✗ N.N s\n\n", steps(delta.get("delta").asText()));
    }

    private static List<String> types(com.fasterxml.jackson.databind.JsonNode output) {
        var types = new java.util.ArrayList<String>();
        output.forEach(item -> types.add(item.get("type").asText()));
        return types;
    }
}
