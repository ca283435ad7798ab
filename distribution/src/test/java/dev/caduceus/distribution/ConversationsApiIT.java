package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.conversations.ConversationCreateParams;
import com.openai.models.conversations.items.ItemCreateParams;
import com.openai.models.responses.EasyInputMessage;
import com.openai.models.responses.ResponseCreateParams;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenAI's Conversations API (issue 43) on the assembled server, driven by the official SDKs unmodified: the openai
 * npm SDK ({@code conversations.mjs}: create with items and metadata, add items, a response in the conversation,
 * items listed with the SDK's auto-paging, one read and deleted, metadata updated, the conversation deleted) and
 * openai-java (create, add an item, a response in the conversation, list, delete). What the model was sent is read
 * in the scripted upstream's recorded requests.
 */
class ConversationsApiIT {
    @TempDir static Path tmp;
    static ScriptedUpstream upstream;
    static Caduceus server;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        server = Caduceus.serve(Files.createDirectories(tmp.resolve("home")), env);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    @BeforeEach
    void reset() {
        upstream.clearQueue();
    }

    @Test
    void theNpmSdkUsesEveryConversationsRoute() throws Exception {
        upstream.enqueue(Turn.text("Your name is Ana."));
        var result = NodeAgents.script("conversations.mjs", "all", server.awaitListening(), Caduceus.TEST_KEY, Map.of(),
                server.stderr());
        assertTrue(result.path("id").asText().startsWith("conv_"), result.toString());
        assertEquals("conversation", result.path("object").asText());
        assertEquals("names", result.path("metadata").path("topic").asText());
        assertEquals(1, result.path("added").asInt());
        assertEquals("Your name is Ana.", result.path("answer").asText());
        var sent = upstream.chatRequests().getLast().body().path("messages").toString();
        assertTrue(sent.contains("My name is Ana.") && sent.contains("Hello Ana.") && sent.contains("What is my name?"), sent);
        assertEquals(List.of("message:user:My name is Ana.", "message:assistant:Hello Ana.", "message:user:What is my name?",
                "message:assistant:Your name is Ana."), texts(result.path("items")));
        assertTrue(result.path("retrieved").asBoolean());
        assertEquals(3, result.path("afterDelete").asInt());
        assertEquals("changed", result.path("updated").asText());
        assertTrue(result.path("deleted").asBoolean());
        assertEquals(404, result.path("afterDeleteStatus").asInt());
    }

    @Test
    void theJavaSdkCreatesAddsAnswersInAConversationAndDeletes() throws Exception {
        var client = OpenAIOkHttpClient.builder().baseUrl(server.awaitListening().resolve("/v1").toString())
                .apiKey(Caduceus.TEST_KEY).maxRetries(0).build();
        try {
            var conversation = client.conversations().create(ConversationCreateParams.builder().build());
            assertTrue(conversation.id().startsWith("conv_"), conversation.id());
            client.conversations().items().create(ItemCreateParams.builder().conversationId(conversation.id())
                    .addItem(EasyInputMessage.builder().role(EasyInputMessage.Role.USER).content("I live in Lisbon.").build())
                    .build());
            upstream.enqueue(Turn.text("You live in Lisbon."));
            var response = client.responses().create(ResponseCreateParams.builder().model("hermes-agent")
                    .input("Where do I live?").conversation(conversation.id()).build());
            assertEquals("You live in Lisbon.", response.output().getFirst().asMessage().content().getFirst().asOutputText().text());
            var sent = upstream.chatRequests().getLast().body().path("messages").toString();
            assertTrue(sent.contains("I live in Lisbon.") && sent.contains("Where do I live?"), sent);
            var items = client.conversations().items().list(conversation.id()).data();
            assertEquals(3, items.size(), items.toString());
            assertTrue(items.getFirst().toString().contains("You live in Lisbon."), "newest first: " + items.getFirst());
            assertTrue(client.conversations().delete(conversation.id()).deleted());
        } finally {
            client.close();
        }
    }

    private static List<String> texts(com.fasterxml.jackson.databind.JsonNode array) {
        var list = new java.util.ArrayList<String>();
        array.forEach(n -> list.add(n.asText()));
        return list;
    }
}
