package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ManualClock;
import dev.caduceus.platform.testkit.TestHost;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /v1/files} on the real host over loopback: an upload comes back byte-identical, listed, retrieved and
 * deleted in OpenAI's shapes; every refusal has its status and code (not multipart, malformed, missing or unknown
 * fields, too many parts, two files, a file past {@code files.max_bytes}, a key past {@code files.quota_bytes},
 * another key's file, an unknown id, no key); names are sanitised; content is served as an attachment of a sniffed,
 * never the client's, type; an expired file is gone and the sweep removes its bytes.
 */
@Timeout(120)
class FilesApiTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long MAX_BYTES = 256 * 1024;
    static final long QUOTA = 600 * 1024;

    final ManualClock clock = new ManualClock(Instant.parse("2026-12-05T10:00:00Z"));
    final HttpClient client = HttpClient.newHttpClient();
    TestHost host;

    @BeforeEach
    void start() {
        host = TestHost.builder().plugins("endpoint-files", "endpoint-capabilities").clock(clock)
                .configYaml("files:\n  max_bytes: " + MAX_BYTES + "\n  quota_bytes: " + QUOTA + "\n").start();
    }

    @AfterEach
    void stop() {
        host.close();
    }

    HttpResponse<byte[]> send(String method, String path, String key, String contentType, byte[] body) throws Exception {
        var request = HttpRequest.newBuilder(host.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30));
        if (key != null) request.header("Authorization", "Bearer " + key);
        if (contentType != null) request.header("Content-Type", contentType);
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Sends {@code head} (a request head, no body) on a new connection; the whole answer, read to the server's close. */
    String headOnly(String head) throws Exception {
        try (var socket = new java.net.Socket(host.baseUrl().getHost(), host.baseUrl().getPort())) {
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(10_000);
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    HttpResponse<byte[]> upload(String key, Multipart body) throws Exception {
        return send("POST", "/v1/files", key, Multipart.contentType(), body.bytes());
    }

    static JsonNode json(HttpResponse<byte[]> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    static void assertError(HttpResponse<byte[]> response, int status, String code) throws Exception {
        assertEquals(status, response.statusCode(), text(response));
        assertEquals(code, json(response).path("error").path("code").asText(), text(response));
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
    }

    static byte[] random(int size) {
        var bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    @Test
    void anUploadIsListedRetrievedServedByteIdenticalAndDeleted() throws Exception {
        var content = random(200 * 1024);
        var created = upload(host.apiKey(), new Multipart().file("file", "data.bin", content).field("purpose", "user_data"));
        assertEquals(200, created.statusCode(), text(created));
        var file = json(created);
        var id = file.path("id").asText();
        assertTrue(id.matches("file-[0-9a-f]{24}"), id);
        assertEquals("file", file.path("object").asText());
        assertEquals(content.length, file.path("bytes").asLong());
        assertEquals(clock.instant().getEpochSecond(), file.path("created_at").asLong());
        assertTrue(file.path("expires_at").isNull());
        assertEquals("data.bin", file.path("filename").asText());
        assertEquals("user_data", file.path("purpose").asText());
        assertEquals("processed", file.path("status").asText());

        assertEquals(file, json(send("GET", "/v1/files/" + id, host.apiKey(), null, null)));
        var list = json(send("GET", "/v1/files", host.apiKey(), null, null));
        assertEquals("list", list.path("object").asText());
        assertEquals(id, list.path("data").get(0).path("id").asText());
        assertEquals(id, list.path("first_id").asText());
        assertFalse(list.path("has_more").asBoolean());

        var served = send("GET", "/v1/files/" + id + "/content", host.apiKey(), null, null);
        assertEquals(200, served.statusCode());
        assertArrayEquals(content, served.body(), "byte-identical");
        assertEquals("application/octet-stream", served.headers().firstValue("Content-Type").orElse(""),
                "sniffed as binary; the client's text/html is never believed");
        assertEquals("attachment; filename*=UTF-8''data.bin", served.headers().firstValue("Content-Disposition").orElse(""));
        assertEquals("nosniff", served.headers().firstValue("X-Content-Type-Options").orElse(""));

        var deleted = json(send("DELETE", "/v1/files/" + id, host.apiKey(), null, null));
        assertEquals(id, deleted.path("id").asText());
        assertTrue(deleted.path("deleted").asBoolean());
        assertError(send("GET", "/v1/files/" + id, host.apiKey(), null, null), 404, "file_not_found");
        assertError(send("GET", "/v1/files/" + id + "/content", host.apiKey(), null, null), 404, "file_not_found");
        assertError(send("DELETE", "/v1/files/" + id, host.apiKey(), null, null), 404, "file_not_found");
    }

    @Test
    void theSameBytesTwiceAreTwoFilesOverOneBlobAndTextIsServedAsText() throws Exception {
        var csv = "city,temp\nOslo,3\nLima,19\n".getBytes(StandardCharsets.UTF_8);
        var a = json(upload(host.apiKey(), new Multipart().field("purpose", "assistants").file("file", "t.csv", csv)));
        var b = json(upload(host.apiKey(), new Multipart().field("purpose", "assistants").file("file", "t.csv", csv)));
        assertFalse(a.path("id").asText().equals(b.path("id").asText()));
        try (var blobs = Files.walk(host.home().resolve("files/blobs"))) {
            assertEquals(1, blobs.filter(Files::isRegularFile).count(), "content-addressed: one blob");
        }
        var served = send("GET", "/v1/files/" + a.path("id").asText() + "/content", host.apiKey(), null, null);
        assertEquals("text/plain; charset=utf-8", served.headers().firstValue("Content-Type").orElse(""));
        assertArrayEquals(csv, served.body());
    }

    @Test
    void everyMalformedUploadIsRefusedWithItsCode() throws Exception {
        var key = host.apiKey();
        var small = "x".getBytes(StandardCharsets.UTF_8);
        assertError(send("POST", "/v1/files", key, "application/json", "{\"purpose\":\"user_data\"}".getBytes()), 400,
                "invalid_content_type");
        assertError(send("POST", "/v1/files", key, "multipart/form-data", small), 400, "invalid_content_type");
        assertError(send("POST", "/v1/files", key, Multipart.contentType(), "garbage with no boundary".getBytes()), 400,
                "invalid_multipart");
        var cut = new Multipart().field("purpose", "user_data").file("file", "a.txt", small).bytes();
        assertError(send("POST", "/v1/files", key, Multipart.contentType(), java.util.Arrays.copyOf(cut, cut.length - 10)),
                400, "invalid_multipart");
        assertError(upload(key, new Multipart().field("purpose", "user_data")), 400, "missing_required_parameter");
        assertError(upload(key, new Multipart().file("file", "a.txt", small)), 400, "missing_required_parameter");
        assertError(upload(key, new Multipart().field("purpose", "fine-tune").file("file", "a.txt", small)), 400, "invalid_value");
        assertError(upload(key, new Multipart().field("purpose", "user_data").field("file", "inline")), 400, "invalid_file");
        assertError(upload(key, new Multipart().field("purpose", "user_data").file("file", "a", small).file("file", "b", small)),
                400, "too_many_files");
        var many = new Multipart().field("purpose", "user_data");
        for (int i = 0; i < 20; i++) many.field("extra" + i, "v");
        assertError(upload(key, many.file("file", "a", small)), 400, "too_many_parts");
        assertError(upload(key, new Multipart().field("purpose", "x".repeat(5000)).file("file", "a", small)), 400,
                "field_too_large");
        assertError(upload(key, new Multipart().field("purpose", "user_data").field("purpose", "user_data").file("file", "a", small)),
                400, "duplicate_field");
        assertError(upload(key, new Multipart().field("purpose", "user_data").file("file", "../..", small)), 400,
                "invalid_filename");
        assertError(upload(key, new Multipart().field("purpose", "user_data").field("expires_after[anchor]", "created_at")
                .field("expires_after[seconds]", "60").file("file", "a", small)), 400, "invalid_value");
        assertError(upload(key, new Multipart().field("purpose", "user_data").field("expires_after[seconds]", "7200")
                .file("file", "a", small)), 400, "invalid_value");
        // refused before the body is read: only the head is sent (a server that closes the connection with the body
        // unread may reset it before a client still sending reads the answer)
        for (var auth : new String[] {"", "Authorization: Bearer wrong-key-wrong-key-wrong-key\r\n"}) {
            var answer = headOnly("POST /v1/files HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: " + Multipart.contentType()
                    + "\r\nContent-Length: 1000\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 401") && answer.contains("\"code\":\"gateway_auth_failed\""), answer);
        }
        assertEquals(0, json(send("GET", "/v1/files", key, null, null)).path("data").size(), "nothing was stored");
        try (var parts = Files.list(host.home().resolve("files/incoming"))) {
            assertEquals(0, parts.count(), "no upload left half-written");
        }
    }

    /** Archive bombs in names and sizes (a zip slip, 150 MiB of zeros in a small zip) are 400 and leave nothing. */
    @Test
    void archiveBombsAreRefusedAndOrdinaryArchivesKept() throws Exception {
        var key = host.apiKey();
        var slip = new java.io.ByteArrayOutputStream();
        try (var zip = new java.util.zip.ZipOutputStream(slip)) {
            zip.putNextEntry(new java.util.zip.ZipEntry("../../.caduceus/config.yaml"));
            zip.write("model: {base_url: http://evil}".getBytes());
        }
        var refused = upload(key, new Multipart().field("purpose", "user_data").file("file", "project.zip", slip.toByteArray()));
        assertError(refused, 400, "unsafe_archive");
        assertTrue(new String(refused.body()).contains("'../../.caduceus/config.yaml' climbs out"), new String(refused.body()));
        var bomb = new java.io.ByteArrayOutputStream();
        try (var zip = new java.util.zip.ZipOutputStream(bomb)) {
            zip.putNextEntry(new java.util.zip.ZipEntry("zeros.bin"));
            var block = new byte[1024 * 1024];
            for (int i = 0; i < 150; i++) zip.write(block);
        }
        assertTrue(bomb.size() < MAX_BYTES, "the bomb is small: " + bomb.size());
        assertError(upload(key, new Multipart().field("purpose", "user_data").file("file", "bomb.zip", bomb.toByteArray())),
                400, "unsafe_archive");
        var fine = new java.io.ByteArrayOutputStream();
        try (var zip = new java.util.zip.ZipOutputStream(fine)) {
            zip.putNextEntry(new java.util.zip.ZipEntry("data/weather.csv"));
            zip.write("id,temp\n1,20\n".getBytes());
        }
        var kept = json(upload(key, new Multipart().field("purpose", "user_data").file("file", "data.zip", fine.toByteArray())));
        var listed = json(send("GET", "/v1/files", key, null, null)).path("data");
        assertEquals(1, listed.size(), listed.toString());
        assertEquals(kept.path("id").asText(), listed.get(0).path("id").asText());
        try (var parts = Files.list(host.home().resolve("files/incoming"))) {
            assertEquals(0, parts.count(), "the refused uploads left nothing behind");
        }
    }

    @Test
    void aFilePastMaxBytesOrAKeyPastItsQuotaIsRefusedWhileStreaming() throws Exception {
        var key = host.apiKey();
        var tooBig = new Multipart().field("purpose", "user_data").file("file", "big.bin", random((int) MAX_BYTES + 1));
        assertError(upload(key, tooBig), 413, "file_too_large");
        assertError(send("POST", "/v1/files", key, Multipart.contentType(), null), 400, "invalid_multipart");
        var chunked = client.send(HttpRequest.newBuilder(host.baseUrl().resolve("/v1/files"))
                .header("Authorization", "Bearer " + key).header("Content-Type", Multipart.contentType())
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(tooBig.bytes()))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertError(chunked, 413, "file_too_large");
        // only the head, declaring a body past the route's limit: answered before any body is sent
        var answer = headOnly("POST /v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                + "\r\nContent-Type: " + Multipart.contentType() + "\r\nContent-Length: " + (MAX_BYTES + 128 * 1024)
                + "\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 413") && answer.contains("\"code\":\"body_too_large\""), answer);

        // two files of 250 KiB fit the 600 KiB quota; a third does not, and deleting one makes room
        var first = json(upload(key, new Multipart().field("purpose", "user_data").file("file", "1", random(250 * 1024))));
        assertEquals(200, upload(key, new Multipart().field("purpose", "user_data").file("file", "2", random(250 * 1024 + 1)))
                .statusCode());
        assertError(upload(key, new Multipart().field("purpose", "user_data").file("file", "3", random(250 * 1024 + 2))), 413,
                "storage_quota_exceeded");
        var tenant = host.addKey("tenant");
        assertEquals(200, upload(tenant, new Multipart().field("purpose", "user_data").file("file", "t", random(250 * 1024 + 3)))
                .statusCode(), "the quota is per key");
        send("DELETE", "/v1/files/" + first.path("id").asText(), key, null, null);
        assertEquals(200, upload(key, new Multipart().field("purpose", "user_data").file("file", "3", random(250 * 1024 + 2)))
                .statusCode());
    }

    @Test
    void aKeysOwnMaxFileBytesCapsItsUploadsBelowTheDeployments() throws Exception {
        var small = host.addKey("small", dev.caduceus.platform.host.auth.KeyPolicy.NONE.withMaxFileBytes("100K"));
        var refused = upload(small, new Multipart().field("purpose", "user_data").file("file", "big", random(100 * 1024 + 1)));
        assertError(refused, 413, "file_too_large");
        assertTrue(text(refused).contains("102400 bytes"), text(refused));
        assertEquals(200, upload(small, new Multipart().field("purpose", "user_data").file("file", "ok", random(100 * 1024)))
                .statusCode());
        var large = host.addKey("large", dev.caduceus.platform.host.auth.KeyPolicy.NONE.withMaxFileBytes("1G"));
        assertError(upload(large, new Multipart().field("purpose", "user_data").file("file", "x", random((int) MAX_BYTES + 1))),
                413, "file_too_large"); // a key's limit never raises the deployment's

        var frugal = host.addKey("frugal", dev.caduceus.platform.host.auth.KeyPolicy.NONE.withMaxStorageBytes("150K"));
        assertEquals(200, upload(frugal, new Multipart().field("purpose", "user_data").file("file", "a", random(100 * 1024)))
                .statusCode());
        var full = upload(frugal, new Multipart().field("purpose", "user_data").file("file", "b", random(60 * 1024)));
        assertError(full, 413, "storage_quota_exceeded");
        assertTrue(text(full).contains("of their 153600 bytes"), text(full));
    }

    @Test
    void namesAreSanitisedAndAnotherKeysFilesAreNotFound() throws Exception {
        var tenant = host.addKey("tenant");
        var other = host.addKey("other");
        var file = json(upload(tenant, new Multipart().field("purpose", "user_data")
                .file("file", "../../etc/pass\u0007wd", "x".getBytes())));
        assertEquals("passwd", file.path("filename").asText());
        var id = file.path("id").asText();
        assertError(send("GET", "/v1/files/" + id, other, null, null), 404, "file_not_found");
        assertError(send("GET", "/v1/files/" + id + "/content", other, null, null), 404, "file_not_found");
        assertError(send("DELETE", "/v1/files/" + id, other, null, null), 404, "file_not_found");
        assertEquals(0, json(send("GET", "/v1/files", other, null, null)).path("data").size());
        assertEquals(1, json(send("GET", "/v1/files", tenant, null, null)).path("data").size());
        assertEquals(id, json(send("GET", "/v1/files/" + id, host.apiKey(), null, null)).path("id").asText(),
                "the admin key sees every key's files");
        assertError(send("GET", "/v1/files/file-000000000000000000000000", tenant, null, null), 404, "file_not_found");
        assertError(send("GET", "/v1/files?limit=0", tenant, null, null), 400, "invalid_limit");
        assertError(send("GET", "/v1/files?limit=10001", tenant, null, null), 400, "invalid_limit");
        assertError(send("GET", "/v1/files?limit=many", tenant, null, null), 400, "invalid_limit");
        assertError(send("GET", "/v1/files?order=up", tenant, null, null), 400, "invalid_order");
        assertError(send("GET", "/v1/files?after=" + id, other, null, null), 400, "invalid_after");
    }

    @Test
    void aListPagesInOrderAndFiltersByPurpose() throws Exception {
        var key = host.apiKey();
        var ids = new java.util.ArrayList<String>();
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofSeconds(1));
            ids.add(json(upload(key, new Multipart().field("purpose", i % 2 == 0 ? "user_data" : "assistants")
                    .file("file", "f" + i, ("file " + i).getBytes()))).path("id").asText());
        }
        var page = json(send("GET", "/v1/files?limit=2", key, null, null));
        assertEquals(java.util.List.of(ids.get(4), ids.get(3)), Stream.of(page.path("data").get(0), page.path("data").get(1))
                .map(n -> n.path("id").asText()).toList());
        assertTrue(page.path("has_more").asBoolean());
        var next = json(send("GET", "/v1/files?limit=2&after=" + page.path("last_id").asText(), key, null, null));
        assertEquals(ids.get(2), next.path("data").get(0).path("id").asText());
        var ascending = json(send("GET", "/v1/files?order=asc&purpose=assistants", key, null, null));
        assertEquals(java.util.List.of(ids.get(1), ids.get(3)), Stream.of(ascending.path("data").get(0),
                ascending.path("data").get(1)).map(n -> n.path("id").asText()).toList());
        assertEquals(2, ascending.path("data").size());
    }

    @Test
    void anExpiredFileIsGoneAndTheSweepRemovesItsBytes() throws Exception {
        var key = host.apiKey();
        var content = random(1000);
        var file = json(upload(key, new Multipart().field("purpose", "user_data").field("expires_after[anchor]", "created_at")
                .field("expires_after[seconds]", "3600").file("file", "soon.bin", content)));
        var id = file.path("id").asText();
        assertEquals(clock.instant().getEpochSecond() + 3600, file.path("expires_at").asLong());
        var blob = host.home().resolve("files/blobs").resolve(sha256(content).substring(0, 2)).resolve(sha256(content));
        assertTrue(Files.exists(blob));
        clock.advance(Duration.ofSeconds(3599));
        assertEquals(200, send("GET", "/v1/files/" + id, key, null, null).statusCode());
        clock.advance(Duration.ofSeconds(1));
        assertError(send("GET", "/v1/files/" + id, key, null, null), 404, "file_not_found");
        assertEquals(0, json(send("GET", "/v1/files", key, null, null)).path("data").size());
        host.runScheduledTask("endpoint-files/files-sweep");
        assertTrue(Files.exists(blob), "its bytes stay for the sweep's grace after their last use");
        clock.advance(FileSweep.GRACE);
        host.runScheduledTask("endpoint-files/files-sweep");
        assertFalse(Files.exists(blob), "no file names the blob any more");
    }

    @Test
    void theCapabilitiesListTheFilesFeatureAndItsLimits() throws Exception {
        var caps = json(send("GET", "/v1/capabilities", host.apiKey(), null, null));
        var files = caps.path("features").path("files");
        assertEquals(MAX_BYTES, files.path("max_bytes").asLong(), caps.toString());
        assertEquals(QUOTA, files.path("quota_bytes").asLong());
        assertEquals("[\"user_data\",\"assistants\"]", files.path("purposes").toString());
        assertEquals("{\"enabled\":true,\"directory\":\"outputs/\",\"max_files_per_run\":20}", files.path("outputs").toString());
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
