package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files into a turn, on the real host with chat, Responses and the scripted upstream: a {@code file} part (by
 * {@code file_id} or {@code file_data}) and an {@code input_file} are placed read-only in the workspace's
 * {@code inputs/} and told to the model in one line (a small text inline too); the same bytes again reuse the
 * file, other bytes under the same name are numbered; an {@code input_image} by {@code file_id} reaches the model as
 * an image; another key's file, an unknown id and malformed parts are 400s; a link the agent left in place of
 * {@code inputs} never leads a write outside the workspace.
 */
@Timeout(120)
class FilesIntoATurnTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final byte[] CSV = "city,temp\nOslo,3\nLima,19\n".getBytes(StandardCharsets.UTF_8);
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");

    final HttpClient client = HttpClient.newHttpClient();
    ScriptedUpstream upstream;
    TestHost host;
    @TempDir Path outside;

    @BeforeEach
    void start() {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("seen"));
        host = TestHost.builder().plugins("endpoint-files", "endpoint-chat", "endpoint-responses", "provider-openai")
                .model(upstream).start();
    }

    @AfterEach
    void stop() {
        host.close();
        upstream.close();
    }

    HttpResponse<String> post(String path, String key, String contentType, byte[] body) throws Exception {
        return client.send(HttpRequest.newBuilder(host.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    String upload(String key, String name, byte[] content) throws Exception {
        var created = post("/v1/files", key, Multipart.contentType(),
                new Multipart().field("purpose", "user_data").file("file", name, content).bytes());
        assertEquals(200, created.statusCode(), created.body());
        return JSON.readTree(created.body()).path("id").asText();
    }

    HttpResponse<String> chat(String key, String content) throws Exception {
        return post("/v1/chat/completions", key, "application/json", ("{\"model\":\"hermes-agent\",\"messages\":[{\"role\":"
                + "\"user\",\"content\":" + content + "}]}").getBytes(StandardCharsets.UTF_8));
    }

    /** The user message the model was sent last, as text. */
    String lastUserMessage() {
        var messages = upstream.chatRequests().getLast().body().path("messages");
        for (int i = messages.size() - 1; i >= 0; i--)
            if (messages.get(i).path("role").asText().equals("user")) return messages.get(i).path("content").toString();
        throw new AssertionError("no user message in " + messages);
    }

    Path inputs() {
        return host.workspace().resolve("inputs");
    }

    @Test
    void aChatFilePartByIdIsPlacedReadOnlyAndToldToTheModelWithASmallTextInline() throws Exception {
        var id = upload(host.apiKey(), "weather.csv", CSV);
        var answer = chat(host.apiKey(), "[{\"type\":\"text\",\"text\":\"Which city is warmer?\"},"
                + "{\"type\":\"file\",\"file\":{\"file_id\":\"" + id + "\"}}]");
        assertEquals(200, answer.statusCode(), answer.body());
        var sent = lastUserMessage();
        assertTrue(sent.contains("Which city is warmer?"), sent);
        assertTrue(sent.contains("[Attached file: inputs/weather.csv in the workspace (text, " + CSV.length + " bytes). Its content:]"),
                sent);
        assertTrue(sent.contains("Lima,19"), "inlined: " + sent);
        var placed = inputs().resolve("weather.csv");
        assertArrayEquals(CSV, Files.readAllBytes(placed));
        assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(placed)));

        // the same bytes under the same name again (a client resending the conversation): the same file
        assertEquals(200, chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + id + "\"}}]").statusCode());
        assertTrue(lastUserMessage().contains("inputs/weather.csv "), lastUserMessage());
        // other bytes under that name: numbered
        var other = upload(host.apiKey(), "weather.csv", "city,temp\nRome,14\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + other + "\"}}]").statusCode());
        assertTrue(lastUserMessage().contains("inputs/weather (2).csv "), lastUserMessage());
        try (var files = Files.list(inputs())) {
            assertEquals(2, files.count(), "no temporary file left behind");
        }
    }

    @Test
    void fileDataAndAResponsesInputFileArePlacedAndABinaryIsOnlyNamed() throws Exception {
        var data = Base64.getEncoder().encodeToString(CSV);
        var answer = chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"file_data\":\"data:text/csv;base64," + data
                + "\",\"filename\":\"../inline.csv\"}}, {\"type\":\"text\",\"text\":\"go\"}]");
        assertEquals(200, answer.statusCode(), answer.body());
        assertArrayEquals(CSV, Files.readAllBytes(inputs().resolve("inline.csv")));

        var binary = new byte[20_000];
        new java.util.Random(3).nextBytes(binary);
        var id = upload(host.apiKey(), "blob.bin", binary);
        var response = post("/v1/responses", host.apiKey(), "application/json", ("{\"model\":\"hermes-agent\",\"input\":[{"
                + "\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"look\"},{\"type\":\"input_file\","
                + "\"file_id\":\"" + id + "\"}]}]}").getBytes(StandardCharsets.UTF_8));
        assertEquals(200, response.statusCode(), response.body());
        var sent = lastUserMessage();
        assertTrue(sent.contains("[Attached file: inputs/blob.bin in the workspace (application/octet-stream, 20000 bytes)]"),
                sent);
        assertArrayEquals(binary, Files.readAllBytes(inputs().resolve("blob.bin")));
    }

    /**
     * A {@code file_url} is fetched with the host's client: through the deployment's proxy for a public name (here a
     * name the test resolves to a public address, served by a proxy on loopback); a loopback or metadata address is
     * refused before anything is sent.
     */
    @Test
    void aFileUrlIsFetchedUnderTheEgressPolicy() throws Exception {
        var proxy = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        var seen = new java.util.concurrent.CopyOnWriteArrayList<String>();
        proxy.createContext("/", exchange -> {
            seen.add(exchange.getRequestURI().toString());
            if (exchange.getRequestURI().getPath().endsWith("/huge.bin")) { // one byte past what a file_url may hold
                exchange.sendResponseHeaders(200, 0);
                try (var out = exchange.getResponseBody()) {
                    var zeros = new byte[1 << 20];
                    for (long sent = 0; sent <= dev.caduceus.support.files.FileInputs.MAX_URL_BYTES; sent += zeros.length)
                        out.write(zeros);
                } catch (java.io.IOException gone) {
                    // the server stopped reading at the limit
                }
                return;
            }
            exchange.sendResponseHeaders(200, CSV.length);
            try (var out = exchange.getResponseBody()) {
                out.write(CSV);
            }
        });
        proxy.start();
        host.close();
        host = TestHost.builder().plugins("endpoint-files", "endpoint-chat", "endpoint-responses", "provider-openai")
                .model(upstream).env("HTTP_PROXY", "http://127.0.0.1:" + proxy.getAddress().getPort())
                .env("NO_PROXY", "127.0.0.1") // the scripted model, directly
                .nameLookup(name -> name.equals("files.example")
                        ? new java.net.InetAddress[] {java.net.InetAddress.getByName("93.184.215.14")}
                        : java.net.InetAddress.getAllByName(name))
                .start();
        try {
            var response = post("/v1/responses", host.apiKey(), "application/json", ("{\"input\":[{\"role\":\"user\","
                    + "\"content\":[{\"type\":\"input_file\",\"file_url\":\"http://files.example/data/weather.csv\"}]}]}")
                    .getBytes(StandardCharsets.UTF_8));
            assertEquals(200, response.statusCode(), response.body());
            assertEquals(java.util.List.of("http://files.example/data/weather.csv"), seen);
            assertArrayEquals(CSV, Files.readAllBytes(inputs().resolve("weather.csv")));
            for (var url : java.util.List.of("http://127.0.0.1:" + proxy.getAddress().getPort() + "/x.csv",
                    "http://169.254.169.254/latest/meta-data/")) {
                var refused = post("/v1/responses", host.apiKey(), "application/json", ("{\"input\":[{\"role\":\"user\","
                        + "\"content\":[{\"type\":\"input_file\",\"file_url\":\"" + url + "\"}]}]}").getBytes(StandardCharsets.UTF_8));
                assertError(refused, "file_url_unreachable", "input[0].content");
            }
            assertEquals(1, seen.size(), "nothing was sent for the refused addresses: " + seen);

            var huge = post("/v1/responses", host.apiKey(), "application/json", ("{\"input\":[{\"role\":\"user\","
                    + "\"content\":[{\"type\":\"input_file\",\"file_url\":\"http://files.example/huge.bin\"}]}]}")
                    .getBytes(StandardCharsets.UTF_8));
            assertError(huge, "file_too_large", "input[0].content");
            try (var left = Files.list(inputs())) {
                assertEquals(java.util.List.of("weather.csv"), left.map(p -> p.getFileName().toString()).toList(),
                        "the refused copy left nothing behind");
            }
        } finally {
            proxy.stop(0);
        }
    }

    @Test
    void anImageByFileIdReachesTheModelAsAnImage() throws Exception {
        var id = upload(host.apiKey(), "dot.png", PNG);
        var response = post("/v1/responses", host.apiKey(), "application/json", ("{\"model\":\"hermes-agent\",\"input\":[{"
                + "\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"what is this\"},{\"type\":\"input_image\","
                + "\"file_id\":\"" + id + "\"}]}]}").getBytes(StandardCharsets.UTF_8));
        assertEquals(200, response.statusCode(), response.body());
        var sent = lastUserMessage();
        assertTrue(sent.contains("data:image/png;base64," + Base64.getEncoder().encodeToString(PNG)), sent);
        var csv = upload(host.apiKey(), "t.csv", CSV);
        var refused = post("/v1/responses", host.apiKey(), "application/json", ("{\"input\":[{\"role\":\"user\",\"content\":"
                + "[{\"type\":\"input_image\",\"file_id\":\"" + csv + "\"}]}]}").getBytes(StandardCharsets.UTF_8));
        assertError(refused, "invalid_image_file", "input[0].content");
    }

    @Test
    void anotherKeysFileUnknownIdsAndMalformedPartsAre400sAndNothingIsPlaced() throws Exception {
        var tenant = host.addKey("tenant");
        var theirs = upload(host.addKey("other"), "secret.csv", CSV);
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + theirs + "\"}}]"), "invalid_file",
                "messages[0].content");
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{\"file_id\":\"file-000000000000000000000000\"}}]"),
                "invalid_file", "messages[0].content");
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{}}]"), "invalid_file", "messages[0].content");
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + theirs + "\",\"file_data\":\"eA==\"}}]"),
                "invalid_file", "messages[0].content");
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{\"file_data\":\"not base64 !!\"}}]"), "invalid_file",
                "messages[0].content");
        assertError(chat(tenant, "[{\"type\":\"file\",\"file\":{\"file_url\":\"https://example.com/x.csv\"}}]"),
                "unsupported_content_type", "messages[0].content"); // chat's file part has no file_url
        assertFalse(Files.exists(inputs().resolve("secret.csv")), "another key's file never reaches the workspace");
        assertEquals(0, upstream.chatRequests().size(), "no turn ran");
    }

    /** An archive sent inline (file_data) is looked into before it is placed: a zip slip is 400 and nothing is placed. */
    @Test
    void anArchiveBombSentInlineIsRefusedBeforeItIsPlaced() throws Exception {
        var slip = new java.io.ByteArrayOutputStream();
        try (var zip = new java.util.zip.ZipOutputStream(slip)) {
            zip.putNextEntry(new java.util.zip.ZipEntry("../../../root/.ssh/authorized_keys"));
            zip.write("ssh-ed25519 AAAA attacker".getBytes(StandardCharsets.UTF_8));
        }
        var data = java.util.Base64.getEncoder().encodeToString(slip.toByteArray());
        var answer = chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"filename\":\"repo.zip\",\"file_data\":"
                + "\"data:application/zip;base64," + data + "\"}}]");
        assertError(answer, "unsafe_archive", "messages[0].content");
        assertTrue(answer.body().contains("climbs out"), answer.body());
        try (var placed = Files.list(inputs())) {
            assertEquals(0, placed.count(), "nothing was placed, not even the half-written copy");
        }
        assertEquals(0, upstream.chatRequests().size(), "no turn ran");
    }

    @Test
    void aLinkInPlaceOfInputsNeverLeadsAWriteOutsideTheWorkspace() throws Exception {
        Files.createDirectories(host.workspace());
        Files.createSymbolicLink(inputs(), outside); // what an agent could leave with `ln -s`
        var id = upload(host.apiKey(), "config.yaml", "server: {port: 1}\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + id + "\"}}]").statusCode());
        try (var there = Files.list(outside)) {
            assertEquals(0, there.count(), "nothing was written where the link pointed");
        }
        assertTrue(Files.isDirectory(inputs(), java.nio.file.LinkOption.NOFOLLOW_LINKS), "inputs is a directory again");
        assertTrue(Files.exists(inputs().resolve("config.yaml")));

        // a link with an input's name is never followed: the input takes the next name
        var target = outside.resolve("victim.txt");
        Files.writeString(target, "keep");
        Files.createSymbolicLink(inputs().resolve("notes.txt"), target);
        var notes = upload(host.apiKey(), "notes.txt", "new".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, chat(host.apiKey(), "[{\"type\":\"file\",\"file\":{\"file_id\":\"" + notes + "\"}}]").statusCode());
        assertEquals("keep", Files.readString(target));
        assertEquals("new", Files.readString(inputs().resolve("notes (2).txt")));
    }

    static void assertError(HttpResponse<String> response, String code, String param) throws Exception {
        assertEquals(400, response.statusCode(), response.body());
        JsonNode error = JSON.readTree(response.body()).path("error");
        assertEquals(code, error.path("code").asText(), response.body());
        assertEquals(param, error.path("param").asText(), response.body());
    }
}
