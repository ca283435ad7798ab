package dev.caduceus.platform.host.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.Poll;
import dev.caduceus.platform.host.metrics.MetricsRegistry;
import dev.caduceus.spi.http.HttpStatusException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP metrics and request ids, on a real server: route templates, statuses, rejections, streams. */
class RequestRecorderTest {
    private final MetricsRegistry registry = new MetricsRegistry();
    private final CountDownLatch streamOpen = new CountDownLatch(1);
    private final CountDownLatch releaseStream = new CountDownLatch(1);
    private TestServer t;

    @BeforeEach
    void start() {
        t = TestServer.builder().recorder(new RequestRecorder(registry.host(), true))
                .route("GET", "/v1/things/{id}", ex -> {
                    if (ex.pathParam("id").startsWith("missing"))
                        throw new HttpStatusException(dev.caduceus.spi.http.ApiError.notFound("thing_not_found", "no such thing"));
                    ex.respond(200, TestServer.MAPPER.createObjectNode().put("id", ex.pathParam("id")));
                })
                .route("GET", "/v1/stream", ex -> {
                    var stream = ex.openEventStream();
                    stream.comment("open");
                    streamOpen.countDown();
                    releaseStream.await(10, TimeUnit.SECONDS);
                })
                .start();
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private String scrape() {
        return new String(registry.scrape(null).body(), StandardCharsets.UTF_8);
    }

    @Test
    void requestsAreCountedByRouteTemplateAndStatus() throws Exception {
        assertEquals(200, t.send(t.authed("/v1/things/a1").GET().build()).statusCode());
        for (int i = 0; i < 50; i++) assertEquals(404, t.send(t.authed("/v1/things/missing-" + i).GET().build()).statusCode());
        assertEquals(404, t.send(t.authed("/nowhere/" + 1).GET().build()).statusCode());
        assertEquals(401, t.send(t.request("/v1/things/a1").GET().build()).statusCode());
        // each request is recorded after its last byte went out, so the last ones may still be on their way
        Poll.until(Duration.ofSeconds(5), "counted", () -> {
            var scraped = scrape();
            return scraped.contains("caduceus_http_requests_total{method=\"GET\",route=\"/v1/things/{id}\",status=\"404\"} 50.0")
                    && scraped.contains("caduceus_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1.0")
                    && scraped.contains("caduceus_http_rejected_total{reason=\"gateway_auth_failed\"} 1.0");
        });
        var text = scrape();
        assertTrue(text.contains("caduceus_http_requests_total{method=\"GET\",route=\"/v1/things/{id}\",status=\"200\"} 1.0"), text);
        assertTrue(text.contains("caduceus_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1.0"), text);
        assertTrue(text.contains("caduceus_http_rejected_total{reason=\"gateway_auth_failed\"} 1.0"), text);
        assertTrue(text.contains("caduceus_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/things/{id}\"}"), text);
        assertTrue(text.lines().noneMatch(l -> l.contains("missing-")), "no raw ids in labels");
    }

    @Test
    void aWellFormedClientRequestIdIsKeptAndAnythingElseReplaced() throws Exception {
        var kept = t.send(t.authed("/v1/things/a").header("X-Request-Id", "client-req.42").GET().build());
        assertEquals("client-req.42", kept.headers().firstValue("X-Request-Id").orElseThrow());
        var replaced = t.send(t.authed("/v1/things/a").header("X-Request-Id", "bad id with spaces\"").GET().build());
        var id = replaced.headers().firstValue("X-Request-Id").orElseThrow();
        assertTrue(id.matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"), id);
        var other = t.send(t.authed("/v1/things/a").GET().build()).headers().firstValue("X-Request-Id").orElseThrow();
        assertNotEquals(id, other);
    }

    @Test
    void anOpenEventStreamIsCountedUntilItEnds() throws Exception {
        var response = t.client.sendAsync(t.authed("/v1/stream").GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertTrue(streamOpen.await(10, TimeUnit.SECONDS));
        Poll.until(Duration.ofSeconds(5), "one stream open",
                () -> scrape().contains("caduceus_http_sse_streams_open 1.0"));
        releaseStream.countDown();
        assertEquals(200, response.get(10, TimeUnit.SECONDS).statusCode());
        Poll.until(Duration.ofSeconds(5), "no stream open",
                () -> scrape().contains("caduceus_http_sse_streams_open 0.0"));
    }
}
