import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Webhooks under load (issue 44), on the assembled server against a zero-delay scripted upstream:
 * <ol>
 *   <li><b>delivery latency</b>: runs started at {@code --rate} per second for {@code --seconds}, each with a
 *       webhook to a local receiver that answers 204; per {@code run.completed}, the time from the event (its
 *       {@code timestamp}, the journal commit of the run's end) to its arrival. p50, p99, max.</li>
 *   <li><b>chat latency with a receiver that hangs</b>: plain chat turns, one client, while runs are started in
 *       the background at {@code --rate}/s; rounds alternate A (the runs name no webhook) and B (each run's webhook
 *       is a receiver that accepts the request and never answers, so every delivery waits out its 10 s and is
 *       retried). p50 and p99 of each side, and B/A.</li>
 * </ol>
 * Run through {@code bench/webhooks}.
 */
public final class WebhookBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "whsec_" + java.util.Base64.getEncoder().encodeToString(
            "webhook-bench-secret-0123456789abcdef".getBytes());

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        int rate = Integer.parseInt(arg(args, "--rate", "100"));
        int seconds = Integer.parseInt(arg(args, "--seconds", "10"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "4"));
        int turns = Integer.parseInt(arg(args, "--turns", "100"));
        var arrivals = new ConcurrentHashMap<String, Double>();
        var receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        receiver.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        receiver.createContext("/ok", exchange -> {
            var body = exchange.getRequestBody().readAllBytes();
            double now = Instant.now().toEpochMilli();
            try {
                var payload = JSON.readTree(body);
                var at = Instant.parse(payload.path("timestamp").asText()).toEpochMilli();
                arrivals.putIfAbsent(payload.path("data").path("run_id").asText(), now - at);
            } catch (IOException | RuntimeException ignored) {
                // not a webhook
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        var hang = new CountDownLatch(1);
        receiver.createContext("/hang", exchange -> {
            try {
                hang.await(); // never answers while the bench runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        receiver.start();
        var base = "http://127.0.0.1:" + receiver.getAddress().getPort();
        var home = Files.createTempDirectory("webhook-bench");
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + SECRET
                + "\n  allow_private_hosts: [127.0.0.1]\n");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false);
            upstream.setDefault(Turn.text("ok").usage(10, 1));
            var server = BenchServer.launch(dist, home, upstream.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            try {
                // 1. delivery latency
                startRuns(http, server.uri(), "\"" + base + "/ok\"", rate, 2); // warm-up
                awaitQuiet(arrivals, 2 * rate);
                arrivals.clear();
                int started = startRuns(http, server.uri(), "\"" + base + "/ok\"", rate, seconds);
                awaitQuiet(arrivals, started);
                var latency = new ArrayList<>(arrivals.values());
                System.out.printf("delivery latency at %d runs/s for %d s: %d of %d delivered; p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                        rate, seconds, latency.size(), started, pct(latency, 50), pct(latency, 99), pct(latency, 100));

                // 2. chat latency, A (no webhook) and B (a receiver that hangs), alternating
                var a = new ArrayList<Double>();
                var b = new ArrayList<Double>();
                var chat = server.uri().resolve("/v1/chat/completions");
                for (int i = 0; i < 20; i++) chat(http, chat); // warm-up
                for (int round = 0; round < 2 * rounds; round++) {
                    boolean hanging = round % 2 == 1;
                    var load = Thread.ofVirtual().start(() -> {
                        try {
                            startRuns(http, server.uri(), hanging ? "\"" + base + "/hang\"" : "null", rate, Integer.MAX_VALUE);
                        } catch (Exception e) {
                            // interrupted: the round ended
                        }
                    });
                    Thread.sleep(1000);
                    for (int t = 0; t < turns; t++) (hanging ? b : a).add(chat(http, chat));
                    load.interrupt();
                    load.join();
                }
                System.out.printf("chat latency, %d turns per side in %d alternating rounds, runs at %d/s in the background:%n",
                        a.size(), 2 * rounds, rate);
                System.out.printf("  A runs without webhooks:           p50 %.2f ms, p99 %.2f ms%n", pct(a, 50), pct(a, 99));
                System.out.printf("  B runs whose webhook never answers: p50 %.2f ms, p99 %.2f ms (B/A p50 %.2fx, p99 %.2fx)%n",
                        pct(b, 50), pct(b, 99), pct(b, 50) / pct(a, 50), pct(b, 99) / pct(a, 99));
            } finally {
                hang.countDown();
                server.process().destroy();
                server.process().waitFor();
                receiver.stop(0);
            }
        }
    }

    /** Starts runs at {@code rate} per second for {@code seconds} (until interrupted); returns how many. */
    private static int startRuns(HttpClient http, URI server, String webhook, int rate, int seconds) throws Exception {
        var runs = server.resolve("/v1/runs");
        var body = "{\"input\":\"hi\",\"webhook\":" + webhook + "}";
        long interval = 1_000_000_000L / rate;
        long start = System.nanoTime();
        int count = 0;
        try (var sends = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long i = 0; seconds == Integer.MAX_VALUE || i < (long) rate * seconds; i++) {
                long due = start + i * interval;
                long wait = due - System.nanoTime();
                if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
                if (Thread.currentThread().isInterrupted()) break;
                sends.submit(() -> http.send(HttpRequest.newBuilder(runs).header("Authorization", "Bearer " + BenchServer.KEY)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                        HttpResponse.BodyHandlers.discarding()));
                count++;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return count;
    }

    private static double chat(HttpClient http, URI chat) throws Exception {
        long start = System.nanoTime();
        var response = http.send(HttpRequest.newBuilder(chat).header("Authorization", "Bearer " + BenchServer.KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new IllegalStateException("chat: " + response.statusCode() + " " + response.body());
        return (System.nanoTime() - start) / 1e6;
    }

    /** Waits until {@code expected} arrived, or nothing arrived for 15 s. */
    private static void awaitQuiet(Map<String, Double> arrivals, int expected) throws InterruptedException {
        int last = -1;
        long quietSince = System.nanoTime();
        while (arrivals.size() < expected) {
            Thread.sleep(100);
            if (arrivals.size() != last) {
                last = arrivals.size();
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > 15_000_000_000L) {
                return;
            }
        }
    }

    private static double pct(List<Double> values, double p) {
        if (values.isEmpty()) return Double.NaN;
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
