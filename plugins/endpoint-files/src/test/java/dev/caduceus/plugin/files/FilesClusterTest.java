package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on one PostgreSQL database and one shared {@code files.dir}: a file uploaded to one is listed, served
 * byte-identical and deleted through the other; and uploads racing on both nodes never take a key past its quota
 * (the quota is checked in the insert's serializable transaction).
 */
@Timeout(180)
class FilesClusterTest {
    static final int FILE = 100 * 1024;
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path shared;
    final HttpClient client = HttpClient.newHttpClient();

    TestHost node(TestPostgres.Db pg, long quota) {
        return TestHost.builder().plugins("endpoint-files").env("CADUCEUS__DATABASE__URL", pg.url())
                .configYaml("files:\n  dir: " + shared + "\n  quota_bytes: " + quota + "\n").start();
    }

    HttpResponse<byte[]> send(TestHost host, String method, String path, String contentType, byte[] body) throws Exception {
        var request = HttpRequest.newBuilder(host.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + host.apiKey());
        if (contentType != null) request.header("Content-Type", contentType);
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static byte[] random(int seed) {
        var bytes = new byte[FILE];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void aFileUploadedToOneNodeIsServedAndDeletedByTheOtherAndTheQuotaHoldsAcrossNodes() throws Exception {
        var pg = TestPostgres.shared().newDatabase();
        long quota = 3L * FILE + 10;
        try (var a = node(pg, quota); var b = node(pg, quota)) {
            var content = random(1);
            var created = send(a, "POST", "/v1/files", Multipart.contentType(),
                    new Multipart().field("purpose", "user_data").file("file", "one.bin", content).bytes());
            assertEquals(200, created.statusCode(), new String(created.body()));
            var id = JSON.readTree(created.body()).path("id").asText();
            assertEquals(id, JSON.readTree(send(b, "GET", "/v1/files", null, null).body()).path("data").get(0).path("id").asText());
            assertArrayEquals(content, send(b, "GET", "/v1/files/" + id + "/content", null, null).body());
            assertEquals(200, send(b, "DELETE", "/v1/files/" + id, null, null).statusCode());
            assertEquals(404, send(a, "GET", "/v1/files/" + id, null, null).statusCode());

            var tries = new ArrayList<Callable<Integer>>();
            for (int i = 0; i < 8; i++) {
                var node = i % 2 == 0 ? a : b;
                var body = new Multipart().field("purpose", "user_data").file("file", "f" + i, random(100 + i)).bytes();
                tries.add(() -> send(node, "POST", "/v1/files", Multipart.contentType(), body).statusCode());
            }
            int stored = 0;
            int refused = 0;
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (var future : pool.invokeAll(tries)) {
                    int status = future.get();
                    if (status == 200) stored++;
                    else if (status == 413) refused++;
                    else throw new AssertionError("unexpected status " + status);
                }
            }
            assertEquals(3, stored, "three files fit the quota, however the uploads race");
            assertEquals(5, refused);
            var listed = JSON.readTree(send(a, "GET", "/v1/files", null, null).body()).path("data");
            long total = 0;
            for (var file : listed) total += file.path("bytes").asLong();
            assertTrue(total <= quota, total + " bytes stored against a quota of " + quota);
        }
    }
}
