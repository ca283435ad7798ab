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
    void aCsvUploadedWithTheNpmSdkIsChartedInTheSandboxAndTheChartComesBack() throws Exception {
        var content = csv(20_000);
        var path = Files.write(work.resolve("weather.csv"), content);
        try (var upstream = ScriptedUpstream.start(); var server = Caduceus.serve(home, Caduceus.upstreamEnv(upstream))) {
            var base = server.awaitListening();
            var command = "wc -l < /workspace/inputs/weather.csv && pwd && mkdir -p outputs && "
                    + "head -n 3 inputs/weather.csv > outputs/first.csv && python3 - <<'EOF'\n" + CHART + "EOF\n";
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "terminal",
                            JSON.createObjectNode().put("command", command).toString())),
                    Turn.text("20,001 lines; the chart is in chart.png."));
            var out = NodeAgents.script("files.mjs", path.toString(), base, Caduceus.TEST_KEY,
                    Map.of("ASK", "Chart the temperatures"), server.stderr());
            assertEquals("completed", out.path("response").path("status").asText(), out.toString());
            assertEquals("20,001 lines; the chart is in chart.png.", out.path("response").path("output_text").asText());
            var first = upstream.chatRequests().get(0).body().path("messages").toString();
            assertTrue(first.contains("[Attached file: inputs/weather.csv in the workspace (text, " + content.length + " bytes)]"),
                    first);
            var afterTool = upstream.chatRequests().get(1).body().path("messages");
            var output = afterTool.get(afterTool.size() - 1).path("content").asText();
            assertTrue(output.contains("20001") && output.contains("/workspace"), "the sandboxed terminal read it: " + output);

            var files = new java.util.TreeMap<String, byte[]>(); // what the turn delivered, without deliver_file
            for (var annotation : out.path("response").path("annotations")) {
                assertEquals("file_path", annotation.path("type").asText(), out.toString());
                var id = annotation.path("file_id").asText();
                var meta = JSON.readTree(server.send("GET", "/v1/files/" + id, null, Caduceus.KEY_AUTH).body());
                var bytes = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                                base.resolve("/v1/files/" + id + "/content")).header("Authorization", "Bearer " + Caduceus.TEST_KEY)
                        .build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, bytes.statusCode());
                files.put(meta.path("filename").asText(), bytes.body());
            }
            assertEquals(List.of("chart.png", "first.csv"), List.copyOf(files.keySet()), out.toString());
            var firstLines = String.join("\n", new String(content, StandardCharsets.UTF_8).lines().limit(3).toList()) + "\n";
            assertEquals(firstLines, new String(files.get("first.csv"), StandardCharsets.UTF_8), "byte-identical");
            var written = Caduceus.defaultWorkspace(home).resolve("outputs/chart.png");
            assertArrayEquals(Files.readAllBytes(written), files.get("chart.png"), "what the agent wrote, byte-identical");
            var chart = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(files.get("chart.png")));
            assertEquals(200, chart.getWidth(), "a PNG the JDK reads");
            assertEquals(0x2060c0, chart.getRGB(2, 99) & 0xffffff, "a bar stands at the bottom left");
            assertEquals(0xffffff, chart.getRGB(2, 0) & 0xffffff, "and ends below the top");
        }
    }

    /**
     * The agent's chart: a histogram of the CSV's temperatures (0..39, one 5-pixel bar each, the tallest 80 pixels)
     * as a 200x100 PNG, with nothing but Python's standard library.
     */
    static final String CHART = """
            import csv, struct, zlib
            counts = [0] * 40
            for row in csv.DictReader(open('/workspace/inputs/weather.csv')):
                counts[int(row['temp'])] += 1
            W, H, top = 200, 100, max(counts)
            rows = bytearray()
            for y in range(H):
                rows.append(0)
                for x in range(W):
                    rows += b'\\x20\\x60\\xc0' if H - y <= counts[x // 5] * 80 // top else b'\\xff\\xff\\xff'
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0))
            png += chunk(b'IDAT', zlib.compress(bytes(rows))) + chunk(b'IEND', b'')
            open('/workspace/outputs/chart.png', 'wb').write(png)
            print('chart.png', W, H)
            """;

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
