package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} end to end: a real Prometheus server (Debian's {@code prometheus}, which
 * {@code .ci/run} installs) scrapes the assembled server with the bearer key while scripted traffic
 * runs (chat, a tool call, a failing upstream, a 429, a 401); its HTTP API must then return the
 * expected counts, and {@code promtool check metrics} must accept the exposition. Also: distinct
 * unknown ids create no series, the family can be turned off (404) and opened ({@code metrics.public}).
 */
class MetricsIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> AUTH = Caduceus.KEY_AUTH;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir static Path home;
    @TempDir static Path promDir;
    static ScriptedUpstream upstream;
    static Caduceus server;
    static Process prometheus;
    static URI prometheusUri;
    static String limitedKey;

    @BeforeAll
    static void start() throws Exception {
        upstream = ScriptedUpstream.start();
        ThirdPartyPlugins.calc(home.resolve("plugins"));
        limitedKey = Caduceus.addNamedKey(home, "limited", "--rpm", "1");
        var env = Caduceus.upstreamEnv(upstream);
        env.put("CADUCEUS__AGENT__TOOLSETS", "hermes-api-server,calc");
        server = Caduceus.serve(home, env);
        prometheus = startPrometheus(server.awaitListening());
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) prometheus.destroyForcibly();
        }
        if (server != null) server.close();
        if (upstream != null) upstream.close();
    }

    /** Prometheus scraping {@code target}'s /metrics every second with the test key as bearer token. */
    static Process startPrometheus(URI target) throws Exception {
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        var config = promDir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: caduceus
                    metrics_path: /metrics
                    authorization:
                      credentials: %s
                    static_configs:
                      - targets: ['%s:%d']
                """.formatted(Caduceus.TEST_KEY, target.getHost(), target.getPort()));
        var process = new ProcessBuilder("prometheus", "--config.file=" + config,
                "--storage.tsdb.path=" + promDir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(promDir.resolve("prometheus.log").toFile()).start();
        prometheusUri = URI.create("http://127.0.0.1:" + port);
        Eventually.await(Duration.ofSeconds(60), "Prometheus is ready", () -> {
            try {
                return HTTP.send(HttpRequest.newBuilder(prometheusUri.resolve("/-/ready")).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
        return process;
    }

    /** The value of a PromQL query that yields one number, or -1 while it yields none. */
    static double query(String promql) throws Exception {
        var uri = prometheusUri.resolve("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        var body = JSON.readTree(HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body());
        var result = body.path("data").path("result");
        if (!result.isArray() || result.isEmpty()) return -1;
        return result.get(0).path("value").get(1).asDouble();
    }

    static void awaitQuery(String promql, double expected) throws Exception {
        var last = new double[1];
        Eventually.await(Duration.ofSeconds(30), promql + " == " + expected + " in Prometheus", () -> {
            last[0] = query(promql);
            return last[0] == expected;
        });
    }

    static HttpResponse<String> chat(String content) throws Exception {
        return server.send("POST", "/v1/chat/completions", "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + content + "\"}]}", merged(AUTH, Map.of("Content-Type", "application/json")));
    }

    @Test
    void prometheusScrapesTheTrafficItSaw() throws Exception {
        upstream.enqueue(Turn.text("Paris.").usage(20, 7, 5));
        assertEquals(200, chat("Capital of France?").statusCode());
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "add", "{\"a\":2,\"b\":40}")), Turn.text("42"));
        assertEquals(200, chat("2+40?").statusCode());
        upstream.enqueue(Turn.error(400, "the upstream refuses this"));
        var failed = chat("Fail, please");
        assertTrue(failed.statusCode() >= 400 || failed.body().contains("error"), failed.body());
        var limited = Map.of("Authorization", "Bearer " + limitedKey);
        assertEquals(200, server.get("/v1/models", limited).statusCode());
        var refused = server.get("/v1/models", limited);
        assertEquals(429, refused.statusCode(), refused.body());
        assertEquals(401, server.get("/v1/models", Map.of("Authorization", "Bearer wrong")).statusCode());

        awaitQuery("sum(caduceus_http_requests_total{route=\"/v1/chat/completions\",method=\"POST\"})", 3);
        awaitQuery("sum(caduceus_http_rejected_total{reason=\"rate_limit_exceeded\"})", 1);
        // another test of this class may send a keyless request of its own: at least this one
        awaitQuery("sum(caduceus_http_rejected_total{reason=\"gateway_auth_failed\"}) >= bool 1", 1);
        awaitQuery("sum(caduceus_runs_started_total{source=\"chat\"})", 3);
        awaitQuery("sum(caduceus_runs_finished_total{source=\"chat\",outcome=\"completed\"})", 2);
        awaitQuery("sum(caduceus_tool_calls_total{tool=\"add\",outcome=\"ok\"})", 1);
        awaitQuery("sum(caduceus_tool_duration_seconds_count{tool=\"add\"})", 1);
        awaitQuery("sum(caduceus_model_calls_total{provider=\"openai\"})", 4);
        awaitQuery("sum(caduceus_model_errors_total{status_class=\"4xx\",retryable=\"false\"})", 1);
        assertTrue(query("sum(caduceus_model_tokens_total{kind=\"prompt\"})") >= 20, "prompt tokens counted");
        assertTrue(query("sum(caduceus_model_tokens_total{kind=\"reasoning\"})") >= 5, "reasoning tokens counted");
        assertTrue(query("sum(caduceus_model_time_to_first_token_seconds_count)") >= 3);
        assertTrue(query("process_resident_memory_bytes") > 0, "process metrics are scraped");
        assertTrue(query("sum(jvm_memory_used_bytes{area=\"heap\"})") > 0, "JVM metrics are scraped");
        assertEquals(1, query("up{job=\"caduceus\"}"), "the scrape with the bearer key succeeds");
    }

    @Test
    void promtoolAcceptsTheExposition() throws Exception {
        var scrape = server.get("/metrics", AUTH);
        assertEquals(200, scrape.statusCode());
        assertTrue(scrape.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        var check = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        try (var in = check.getOutputStream()) {
            in.write(scrape.body().getBytes(StandardCharsets.UTF_8));
        }
        var output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), "promtool check metrics:\n" + output);
        var open = server.get("/metrics", merged(AUTH, Map.of("Accept", "application/openmetrics-text; version=1.0.0")));
        assertTrue(open.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"));
        assertTrue(open.body().endsWith("# EOF\n"));
    }

    @Test
    void distinctUnknownIdsCreateNoNewSeries() throws Exception {
        assertEquals(404, server.get("/v1/runs/run_warmup", AUTH).statusCode());
        assertEquals(404, server.get("/no/such/path/warmup", AUTH).statusCode());
        long before = seriesCount();
        for (int i = 0; i < 1000; i++) {
            assertEquals(404, server.get("/v1/runs/run_" + i + "x", AUTH).statusCode());
            if (i % 10 == 0) assertEquals(404, server.get("/no/such/path/" + i, AUTH).statusCode());
        }
        assertEquals(before, seriesCount(), "1,000 unknown ids (and 100 unknown paths) add no series");
    }

    /** The number of caduceus_http_* sample lines in a scrape. */
    static long seriesCount() throws Exception {
        return server.get("/metrics", AUTH).body().lines().filter(l -> l.startsWith("caduceus_http_")).count();
    }

    @Test
    void theFamilyCanBeTurnedOffOrOpened(@TempDir Path other) throws Exception {
        var env = new HashMap<>(Caduceus.upstreamEnv(upstream));
        env.put("CADUCEUS__METRICS__ENABLED", "false");
        try (var off = Caduceus.serve(other.resolve("off"), env)) {
            var response = off.get("/metrics", AUTH);
            assertEquals(404, response.statusCode());
            assertTrue(response.body().contains("\"error\""), response.body());
        }
        env.put("CADUCEUS__METRICS__ENABLED", "true");
        env.put("CADUCEUS__METRICS__PUBLIC", "true");
        try (var open = Caduceus.serve(other.resolve("open"), env)) {
            var response = open.get("/metrics", Map.of());
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("caduceus_runs_active"), response.body());
            assertEquals(401, open.get("/v1/models", Map.of()).statusCode(), "only /metrics is opened");
        }
        assertEquals(401, server.get("/metrics", Map.of()).statusCode(), "closed by default");
    }

    private static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        var m = new HashMap<>(a);
        m.putAll(b);
        return m;
    }
}
