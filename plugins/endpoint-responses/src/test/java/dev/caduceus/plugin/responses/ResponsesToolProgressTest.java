package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chat.tool_progress: reasoning} on a Responses stream: each tool step as a reasoning summary. */
class ResponsesToolProgressTest {
    private static final String STREAM = "{\"input\":\"what is here?\",\"stream\":true}";

    @TempDir Path dir;
    TestDatabase db;

    @BeforeEach
    void setUp() {
        db = TestDatabase.open(dir, "endpoint-responses");
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    @Test
    void reasoningAddsASummarisedReasoningItemPerToolStep() throws Exception {
        var api = new ResponsesFixture(db, Map.of("chat.tool_progress", "reasoning")).answersWithTool();
        var stream = api.post(STREAM).stream();
        assertEquals(List.of("response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                "response.output_item.added", "response.reasoning_summary_part.added",
                "response.reasoning_summary_text.delta",
                "response.output_item.added",
                "response.output_item.done", "response.output_item.added", "response.output_item.done",
                "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
                "response.reasoning_summary_part.done", "response.output_item.done",
                "response.output_text.delta", "response.output_text.done", "response.content_part.done",
                "response.output_item.done", "response.completed"), ResponsesFixture.names(stream));
        var data = ResponsesFixture.data(stream);
        var added = data.get(5);
        assertEquals(1, added.get("output_index").asInt());
        var id = added.at("/item/id").asText();
        assertTrue(id.matches("rs_[0-9a-f]{24}"), id);
        assertEquals("{\"id\":\"" + id + "\",\"type\":\"reasoning\",\"summary\":[]}", added.get("item").toString());
        assertEquals("{\"type\":\"response.reasoning_summary_part.added\",\"item_id\":\"" + id + "\",\"output_index\":1,"
                + "\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"\"},\"sequence_number\":6}",
                data.get(6).toString());
        assertEquals("💻 terminal: ls\n", data.get(7).get("delta").asText());
        assertEquals(2, data.get(8).get("output_index").asInt(), "the function_call follows its step");
        assertEquals("✓ 0.0 s\n\n", data.get(12).get("delta").asText());
        assertEquals("💻 terminal: ls\n✓ 0.0 s\n\n", data.get(13).get("text").asText());
        assertEquals("{\"id\":\"" + id + "\",\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
                + "\"text\":\"💻 terminal: ls\\n✓ 0.0 s\\n\\n\"}]}", data.get(15).get("item").toString());
        var completed = data.getLast().get("response");
        assertEquals(List.of("reasoning", "function_call", "function_call_output", "message"), types(completed.get("output")));
        assertEquals("Let me look. There are 2 entries.", completed.at("/output/3/content/0/text").asText());
        // stored as sent, and a replay without the journal synthesizes the same summary
        var stored = api.get(completed.get("id").asText()).responseBody();
        assertEquals(types(completed.get("output")), types(stored.get("output")));
        // the transcript holds no progress text
        api.answers("ok");
        api.post("{\"input\":\"next\",\"previous_response_id\":\"" + completed.get("id").asText() + "\"}");
        assertTrue(ResponsesFixture.texts(api.lastRequest().messages()).indexOf("✓") < 0);
    }

    @Test
    void theHeaderChoosesReasoningOrNotAndTheDefaultAddsNothing() throws Exception {
        var api = new ResponsesFixture(db).answersWithTool();
        assertEquals(14, ResponsesFixture.names(api.post(STREAM).stream()).size(), "comments by default: no reasoning");
        api.answersWithTool();
        assertTrue(ResponsesFixture.names(api.post(STREAM, "X-Hermes-Tool-Progress", "reasoning").stream())
                .contains("response.reasoning_summary_text.delta"));
        var configured = new ResponsesFixture(db, Map.of("chat.tool_progress", "reasoning")).answersWithTool();
        assertEquals(14, ResponsesFixture.names(configured.post(STREAM, "X-Hermes-Tool-Progress", "events").stream()).size());
        configured.answersWithTool();
        assertEquals(14, ResponsesFixture.names(configured.post(STREAM, "X-Hermes-Tool-Progress", "false").stream()).size());
        configured.answersWithTool();
        assertEquals(21, ResponsesFixture.names(configured.post(STREAM, "X-Hermes-Tool-Progress", "bogus").stream()).size());
    }

    @Test
    void replayOfAStoredReasoningItemSynthesizesItsSummaryEvents() throws Exception {
        var api = new ResponsesFixture(db, Map.of("chat.tool_progress", "reasoning")).answersWithTool();
        var data = ResponsesFixture.data(api.post(STREAM).stream());
        var id = data.getFirst().at("/response/id").asText();
        db.write(sql -> sql.update("DELETE FROM response_events"));
        var replay = api.get(id, "stream", "true").stream();
        var names = ResponsesFixture.names(replay);
        assertTrue(names.containsAll(List.of("response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.done", "response.reasoning_summary_part.done")), names.toString());
        var delta = ResponsesFixture.data(replay).stream()
                .filter(d -> d.get("type").asText().equals("response.reasoning_summary_text.delta")).findFirst().orElseThrow();
        assertEquals("💻 terminal: ls\n✓ 0.0 s\n\n", delta.get("delta").asText());
    }

    private static List<String> types(com.fasterxml.jackson.databind.JsonNode output) {
        var types = new java.util.ArrayList<String>();
        output.forEach(item -> types.add(item.get("type").asText()));
        return types;
    }
}
