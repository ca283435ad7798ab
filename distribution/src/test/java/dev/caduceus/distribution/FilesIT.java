package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.files.FileCreateParams;
import com.openai.models.files.FilePurpose;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v1/files} of the assembled server through the clients users upload with: the official {@code openai} npm
 * SDK (newest major: {@code files.create} with a stream, list, retrieve, content, delete), {@code openai-java}
 * ({@code files().create} and {@code files().content}) and {@code curl -F}; each upload comes back
 * byte-identical.
 */
@Timeout(240)
class FilesIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path home;
    @TempDir Path work;

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    static byte[] csv(int rows) {
        var out = new StringBuilder("id,city,temp\n");
        var random = new Random(rows);
        for (int i = 0; i < rows; i++) out.append(i).append(",city").append(random.nextInt(1000)).append(',')
                .append(random.nextInt(40)).append('\n');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theNpmSdkUploadsListsDownloadsAndDeletesAFile() throws Exception {
        var content = csv(20_000);
        var path = Files.write(work.resolve("weather.csv"), content);
        try (var upstream = ScriptedUpstream.start(); var server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream))) {
            var out = NodeAgents.script("files.mjs", path.toString(), server.awaitListening(), Caduceus.TEST_KEY, Map.of(),
                    server.stderr());
            var created = out.path("created");
            var id = created.path("id").asText();
            assertEquals("weather.csv", created.path("filename").asText(), out.toString());
            assertEquals(content.length, created.path("bytes").asLong());
            assertEquals("user_data", created.path("purpose").asText());
            assertEquals(created.path("created_at").asLong() + 86400, created.path("expires_at").asLong());
            assertEquals(List.of(id), JSON.convertValue(out.path("listed"), List.class));
            assertEquals(created, out.path("retrieved"));
            assertEquals(sha256(content), out.path("contentSha256").asText(), "byte-identical");
            assertEquals("text/plain; charset=utf-8", out.path("contentType").asText());
            assertTrue(out.path("deleted").path("deleted").asBoolean(), out.toString());
            assertEquals(404, out.path("afterDelete").path("status").asInt(), out.toString());
            assertEquals("file_not_found", out.path("afterDelete").path("code").asText(), out.toString());
        }
    }

    /**
     * Issue 45's "done when": a CSV uploaded with the npm SDK is attached by {@code file_id} to a Responses turn the
     * same SDK starts ({@code responses.create} with {@code input_file}); the agent reads it with the terminal, in the
     * sandbox, from {@code /workspace/inputs/}, writes a file to {@code outputs/} and delivers it; the answer carries
     * its {@code file_path} annotation, and the file comes back through {@code /v1/files/{id}/content} identical.
     */
    @Test
    void aCsvUploadedWithTheNpmSdkIsReadByTheAgentInTheSandboxAndWhatItWritesComesBack() throws Exception {
        var content = csv(20_000);
        var path = Files.write(work.resolve("weather.csv"), content);
        try (var upstream = ScriptedUpstream.start(); var server = Caduceus.serve(home, withFiles(Caduceus.upstreamEnv(upstream)))) {
            var base = server.awaitListening();
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal",
                            "{\"command\":\"wc -l < /workspace/inputs/weather.csv && pwd && mkdir -p outputs && "
                            + "head -n 3 inputs/weather.csv > outputs/first.csv\"}")),
                    Turn.toolCalls(Turn.ToolCall.of("call_2", "deliver_file", "{\"path\":\"/workspace/outputs/first.csv\"}")),
                    Turn.text("20,001 lines; the first three are in first.csv."));
            var out = NodeAgents.script("files.mjs", path.toString(), base, Caduceus.TEST_KEY,
                    Map.of("ASK", "How many lines?"), server.stderr());
            assertEquals("completed", out.path("response").path("status").asText(), out.toString());
            assertEquals("20,001 lines; the first three are in first.csv.", out.path("response").path("output_text").asText());
            assertEquals("file_path", out.path("response").path("annotations").path(0).path("type").asText(), out.toString());
            var first = upstream.chatRequests().get(0).body().path("messages").toString();
            assertTrue(first.contains("[Attached file: inputs/weather.csv in the workspace (text, " + content.length + " bytes)]"),
                    first);
            var afterTool = upstream.chatRequests().get(1).body().path("messages");
            var output = afterTool.get(afterTool.size() - 1).path("content").asText();
            assertTrue(output.contains("20001") && output.contains("/workspace"), "the sandboxed terminal read it: " + output);
            var afterDelivery = upstream.chatRequests().get(2).body().path("messages");
            var delivered = JSON.readTree(afterDelivery.get(afterDelivery.size() - 1).path("content").asText());
            assertEquals(delivered.path("file_id").asText(), out.path("response").path("annotations").path(0).path("file_id").asText());
            var download = server.send("GET", delivered.path("download").asText(), null, Caduceus.KEY_AUTH);
            assertEquals(200, download.statusCode(), download.body());
            var firstLines = String.join("\n", new String(content, StandardCharsets.UTF_8).lines().limit(3).toList()) + "\n";
            assertEquals(firstLines, download.body(), "what the agent wrote, byte-identical");
        }
    }

    /** The agent's toolsets with {@code files} ({@code deliver_file}) added. */
    static Map<String, String> withFiles(Map<String, String> env) {
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,files");
        return env;
    }

    @Test
    void theJavaSdkAndCurlUploadAndTheBytesComeBackIdentical() throws Exception {
        var binary = new byte[3 * 1024 * 1024 + 11];
        new Random(7).nextBytes(binary);
        var path = Files.write(work.resolve("archive.bin"), binary);
        try (var upstream = ScriptedUpstream.start(); var server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream))) {
            var base = server.awaitListening();
            var client = OpenAIOkHttpClient.builder().baseUrl(base.resolve("/v1").toString()).apiKey(Caduceus.TEST_KEY)
                    .maxRetries(0).build();
            try {
                var created = client.files().create(FileCreateParams.builder().file(path).purpose(FilePurpose.USER_DATA).build());
                assertEquals("archive.bin", created.filename());
                assertEquals(binary.length, created.bytes());
                try (var response = client.files().content(created.id())) {
                    assertArrayEquals(binary, response.body().readAllBytes(), "openai-java: byte-identical");
                }
            } finally {
                client.close();
            }

            var curl = new ProcessBuilder("curl", "-sS", "--fail-with-body", "-H", "Authorization: Bearer " + Caduceus.TEST_KEY,
                    "-F", "purpose=assistants", "-F", "file=@" + path + ";filename=../../from curl.bin",
                    base.resolve("/v1/files").toString()).redirectErrorStream(true).start();
            var answer = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(curl.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, curl.exitValue(), answer);
            JsonNode file = JSON.readTree(answer);
            assertEquals("from curl.bin", file.path("filename").asText(), "the directories are dropped: " + answer);
            assertEquals("assistants", file.path("purpose").asText());
            var download = work.resolve("download.bin");
            var get = new ProcessBuilder("curl", "-sS", "--fail-with-body", "-H", "Authorization: Bearer " + Caduceus.TEST_KEY,
                    "-o", download.toString(), base.resolve("/v1/files/" + file.path("id").asText() + "/content").toString())
                    .redirectErrorStream(true).start();
            var getOutput = new String(get.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(get.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, get.exitValue(), getOutput);
            assertArrayEquals(binary, Files.readAllBytes(download), "curl: byte-identical");
        }
    }
}
