package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.FrontendFixtures;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Recognition by structure: every front-end fixture, and near misses that must stay conversations. */
class HousekeepingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyFixtureIsRecognisedAsItsKindSays() {
        for (var line : FrontendFixtures.all()) {
            var task = Housekeeping.recognise(line.path("body"));
            var kind = line.path("kind").asText();
            if (FrontendFixtures.housekeeping(line)) {
                assertTrue(task.isPresent(), "not recognised: " + line.path("client") + " " + kind);
                assertEquals(kind.substring("housekeeping:".length()), task.get().name(), line.toString());
            } else {
                assertEquals(Optional.empty(), task, "a conversation was taken for housekeeping: " + line.path("body"));
            }
        }
    }

    @Test
    void theFrontEndIsNamed() {
        assertEquals("open-webui", front("open-webui-0.9.5.jsonl", 1));
        assertEquals("librechat", front("librechat.jsonl", 1));
        assertEquals("lobe-chat", front("lobe-chat.jsonl", 1));
    }

    @Test
    void aUserWhoTypesTheTaskHeaderIsHavingAConversation() {
        assertFalse(recognised(user("### Task:\nExplain what this regex does: ^a+$")));
        assertFalse(recognised(user("### Task:\nSummarise the meeting.\n### Output:\nJSON format: { \"summary\": \"…\" }")),
                "no quoted chat history");
        assertFalse(recognised(user("Please fill this in:\n### Task:\nGenerate tags\n### Output:\nJSON format: {\"tags\": []}"
                + "\n<chat_history>\n</chat_history>")), "the template does not start the message");
    }

    @Test
    void aSystemPromptAboutTitlesIsNotATitleRequest() {
        assertFalse(recognised(body("""
                {"messages":[{"role":"system","content":"You write titles.\\n\\nRules:\\n- Use the user's locale"},
                 {"role":"user","content":"A title for my essay on bees, please"}]}""")));
        assertFalse(recognised(body("""
                {"messages":[{"role":"system","content":"Generate a concise title for whatever the user says."},
                 {"role":"user","content":"user: hello"}]}""")), "no rules list naming the locale");
    }

    @Test
    void aTemplateInsideALongerConversationIsNotHousekeeping() {
        var template = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(2).path("body").path("messages").get(0);
        var conversation = JSON.createObjectNode();
        var messages = conversation.putArray("messages");
        messages.addObject().put("role", "user").put("content", "hi");
        messages.addObject().put("role", "assistant").put("content", "hello");
        messages.add(template);
        assertFalse(recognised(conversation));
    }

    @Test
    void aLibreChatShapeWithoutATitleInstructionIsNotATitle() {
        assertFalse(recognised(user("Summarise this log.\n\nUser: the build is red\nAI: which job?")));
        assertFalse(recognised(user("Give this a title.\n\nAI: first\nUser: second")), "the transcript starts with User:");
    }

    @Test
    void openWebUiTaskMetadataIsEnoughForASingleMessage() {
        assertTrue(recognised(body("""
                {"messages":[{"role":"user","content":"My own title template"}],
                 "metadata":{"task":"title_generation"}}""")));
        assertFalse(recognised(body("""
                {"messages":[{"role":"user","content":"My own title template"}],"metadata":{"task":"moa_response_generation"}}""")));
    }

    @Test
    void oddBodiesAreNotRecognisedAndDoNotThrow() {
        assertFalse(recognised(body("{\"messages\":\"nope\"}")));
        assertFalse(recognised(body("[1,2]")));
        assertFalse(recognised(body("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\"}]}]}")));
    }

    private static String front(String file, int line) {
        return Housekeeping.recognise(FrontendFixtures.load(file).get(line).path("body")).orElseThrow().frontEnd();
    }

    private static boolean recognised(JsonNode body) {
        return Housekeeping.recognise(body).isPresent();
    }

    private static JsonNode user(String text) {
        var body = JSON.createObjectNode();
        body.putArray("messages").addObject().put("role", "user").put("content", text);
        return body;
    }

    private static JsonNode body(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
