package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Files out of a turn: the agent's {@code deliver_file} keeps a workspace file as a file of the run's key, listed by
 * {@code GET /v1/runs/{id}/artifacts} and served byte-identical by {@code /v1/files/{id}/content}; a link the agent
 * made to a file outside the workspace (the server's key) delivers nothing; another key sees neither the run's
 * artifacts nor the file.
 */
@Timeout(120)
class DeliverFileTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");
    final HttpClient client = HttpClient.newHttpClient();
    ScriptedUpstream upstream;
    TestHost host;

    @BeforeEach
    void start() {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("done"));
        host = TestHost.builder().plugins("endpoint-files", "endpoint-runs", "endpoint-chat", "endpoint-responses",
                        "provider-openai").model(upstream)
                .env("CADUCEUS__AGENT__TOOLSETS", "files").start();
    }

    @AfterEach
    void stop() {
        host.close();
        upstream.close();
    }

    HttpResponse<byte[]> send(String method, String path, String key, String body) throws Exception {
        var request = HttpRequest.newBuilder(host.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    JsonNode json(HttpResponse<byte[]> response) throws Exception {
        return JSON.readTree(response.body());
    }

    /** Starts a run whose agent calls deliver_file with {@code path}, waits for its end; its id. */
    String runDelivering(String key, String path) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "deliver_file", "{\"path\":\"" + path + "\"}")),
                Turn.text("Here is your file."));
        var created = send("POST", "/v1/runs", key, "{\"input\":\"make me a chart\"}");
        assertEquals(202, created.statusCode(), new String(created.body()));
        var id = json(created).path("run_id").asText();
        Eventually.await(Duration.ofSeconds(30), "the run ended", () -> json(send("GET", "/v1/runs/" + id, key, null))
                .path("status").asText(), status -> status.equals("completed") || status.equals("failed"));
        return id;
    }

    /** The last tool result the model was sent. */
    String toolResult() {
        var messages = upstream.chatRequests().getLast().body().path("messages");
        return messages.get(messages.size() - 1).path("content").asText();
    }

    @Test
    void aDeliveredFileIsARunArtifactServedByteIdentical() throws Exception {
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        Files.write(outputs.resolve("chart.png"), PNG);
        var tenant = host.addKey("tenant");
        var run = runDelivering(tenant, "/workspace/outputs/chart.png");
        var result = JSON.readTree(toolResult());
        var fileId = result.path("file_id").asText();
        assertTrue(fileId.startsWith("file-"), result.toString());
        assertEquals("/v1/files/" + fileId + "/content", result.path("download").asText());

        var artifacts = json(send("GET", "/v1/runs/" + run + "/artifacts", tenant, null)).path("data");
        assertEquals(1, artifacts.size(), artifacts.toString());
        assertEquals(fileId, artifacts.get(0).path("file_id").asText());
        assertEquals("chart.png", artifacts.get(0).path("filename").asText());
        assertEquals("image/png", artifacts.get(0).path("content_type").asText());
        assertArrayEquals(PNG, send("GET", "/v1/files/" + fileId + "/content", tenant, null).body());
        var file = json(send("GET", "/v1/files/" + fileId, tenant, null));
        assertEquals("assistants_output", file.path("purpose").asText());
        assertTrue(file.path("expires_at").asLong() > file.path("created_at").asLong(), "expires with the sessions");

        var other = host.addKey("other");
        assertEquals(404, send("GET", "/v1/runs/" + run + "/artifacts", other, null).statusCode());
        assertEquals(404, send("GET", "/v1/files/" + fileId + "/content", other, null).statusCode());
    }

    /**
     * A chat answer whose agent delivered a file ends with a Markdown link a browser can follow without the key
     * (signed, on the request's origin), streamed or not; a changed signature or file id is 403.
     */
    @Test
    void aChatAnswerEndsWithASignedLinkThatDownloadsWithoutTheKey() throws Exception {
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        Files.write(outputs.resolve("chart.png"), PNG);
        for (boolean stream : new boolean[] {false, true}) {
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "deliver_file", "{\"path\":\"outputs/chart.png\"}")),
                    Turn.text("Here is your chart."));
            var answer = send("POST", "/v1/chat/completions", host.apiKey(), "{\"model\":\"hermes-agent\",\"stream\":" + stream
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"chart please\"}]}");
            assertEquals(200, answer.statusCode(), new String(answer.body()));
            var text = stream ? streamedText(new String(answer.body(), StandardCharsets.UTF_8))
                    : json(answer).path("choices").get(0).path("message").path("content").asText();
            var link = java.util.regex.Pattern.compile("\\*\\*Files\\*\\*\\n- \\[chart\\.png\\]\\((http://127\\.0\\.0\\.1:[0-9]+"
                    + "/v1/files/file-[0-9a-f]{24}/download\\?expires=[0-9]+&signature=[0-9a-f]{64})\\)").matcher(text);
            assertTrue(text.startsWith("Here is your chart.") && link.find(), stream + ": " + text);
            var plain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(java.net.URI.create(link.group(1))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, plain.statusCode(), "no key needed");
            assertArrayEquals(PNG, plain.body());
            var url = link.group(1);
            var tampered = url.substring(0, url.length() - 1) + (url.endsWith("0") ? "1" : "0"); // its last digit changed
            var refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(java.net.URI.create(tampered)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("\"invalid_link\""), refused.body());
        }
        var noFiles = send("POST", "/v1/chat/completions", host.apiKey(), "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertEquals("done", json(noFiles).path("choices").get(0).path("message").path("content").asText(),
                "a turn that delivered nothing has no footer");
    }

    /** A response whose agent delivered a file carries a {@code file_path} annotation with its id, streamed or not. */
    @Test
    void aResponseCarriesAFilePathAnnotationForEachDeliveredFile() throws Exception {
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        Files.write(outputs.resolve("chart.png"), PNG);
        for (boolean stream : new boolean[] {false, true}) {
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "deliver_file", "{\"path\":\"outputs/chart.png\"}")),
                    Turn.text("Here is your chart."));
            var answer = send("POST", "/v1/responses", host.apiKey(), "{\"stream\":" + stream + ",\"input\":\"chart please\"}");
            assertEquals(200, answer.statusCode(), new String(answer.body()));
            JsonNode response = stream ? null : json(answer);
            if (stream) {
                for (var line : new String(answer.body(), StandardCharsets.UTF_8).split("\n"))
                    if (line.startsWith("data: {") && line.contains("\"response.completed\""))
                        response = JSON.readTree(line.substring(6)).path("response");
            }
            JsonNode text = null;
            for (var item : response.path("output"))
                if (item.path("type").asText().equals("message")) text = item.path("content").get(0);
            var annotation = text.path("annotations").get(0);
            assertEquals("file_path", annotation.path("type").asText(), stream + ": " + response);
            assertEquals("Here is your chart.".length(), annotation.path("index").asInt());
            assertArrayEquals(PNG, send("GET", "/v1/files/" + annotation.path("file_id").asText() + "/content", host.apiKey(),
                    null).body());
        }
    }

    static String streamedText(String sse) throws Exception {
        var out = new StringBuilder();
        for (var line : sse.split("\n")) {
            if (!line.startsWith("data: {")) continue;
            var delta = JSON.readTree(line.substring(6)).path("choices").path(0).path("delta").path("content");
            if (delta.isTextual()) out.append(delta.asText());
        }
        return out.toString();
    }

    @Test
    void aLinkToAFileOutsideTheWorkspaceDeliversNothing() throws Exception {
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        var secret = Files.writeString(host.home().resolve("not-for-the-agent.txt"), "server secret");
        Files.createSymbolicLink(outputs.resolve("key.txt"), secret);
        Files.createSymbolicLink(host.workspace().resolve("state"), host.home());
        var database = host.home().resolve("caduceus.db");
        assertTrue(Files.isRegularFile(database), "the server's database is there to be tried");
        Files.createSymbolicLink(outputs.resolve("server.db"), database);
        for (var path : new String[] {"outputs/key.txt", "state/not-for-the-agent.txt", "state/caduceus.db",
                "outputs/server.db", "../not-for-the-agent.txt", secret.toString(), database.toString(), "/dev/zero"}) {
            var run = runDelivering(host.apiKey(), path);
            assertTrue(toolResult().contains("\"error\"") || !toolResult().contains("file_id"), path + ": " + toolResult());
            assertEquals(0, json(send("GET", "/v1/runs/" + run + "/artifacts", host.apiKey(), null)).path("data").size(), path);
        }
        assertEquals(0, json(send("GET", "/v1/files", host.apiKey(), null)).path("data").size(), "nothing was kept");
        assertEquals("server secret", Files.readString(secret, StandardCharsets.UTF_8));
    }
}
