import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Model routes under failure and their cost (issue 47). Two parts, one server each:
 * <ol>
 *   <li><b>kill</b>: the default route has two deployments (scripted upstreams A and B, each answering after
 *       {@code --latency} ms); {@code --clients} clients send non-streamed chat turns in a closed loop for
 *       {@code --seconds}; halfway, B is stopped (its connections reset, its port closed). Reports the turns and
 *       failed turns before and after, and the p50/p99 of the second after the kill, of the last second before
 *       it and of the rest after it.</li>
 *   <li><b>overhead</b>: one client, zero-latency upstream; blocks of {@code --calls} turns alternate between a
 *       server with no routes (the provider called directly) and one whose default route has two deployments on
 *       the same upstream (every call through the router); the median turn time of each, median over rounds.</li>
 * </ol>
 * {@code --overhead-only} skips the first part; {@code --aa} runs the second with no routes on both servers (the
 * noise of comparing two server processes). Run through {@code bench/model-failover}.
 */
public final class FailoverBench {
    static final String KEY = BenchServer.KEY;
    static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    public static void main(String[] args) throws Exception {
        var dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        int clients = Integer.parseInt(arg(args, "--clients", "64"));
        int seconds = Integer.parseInt(arg(args, "--seconds", "20"));
        int latency = Integer.parseInt(arg(args, "--latency", "50"));
        int calls = Integer.parseInt(arg(args, "--calls", "1000"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "5"));
        var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        boolean aa = java.util.Arrays.asList(args).contains("--aa");
        if (!java.util.Arrays.asList(args).contains("--overhead-only")) kill(dist, http, clients, seconds, latency);
        overhead(dist, http, calls, rounds, aa);
    }

    record Sample(long atNanos, double ms, boolean ok) {}

    static void kill(Path dist, HttpClient http, int clients, int seconds, int latency) throws Exception {
        try (var a = ScriptedUpstream.start(); var b = ScriptedUpstream.start()) {
            for (var u : List.of(a, b)) {
                u.recordRequests(false);
                u.setDefault(Turn.text("an answer of a few words").delayMillis(latency));
            }
            var home = Files.createTempDirectory("failover-bench");
            Files.writeString(home.resolve("config.yaml"), """
                    model:
                      deployments:
                        - {base_url: "%s"}
                    """.formatted(b.baseUrl()));
            var server = BenchServer.launch(dist, home, a.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            try {
                var chat = server.uri().resolve("/v1/chat/completions");
                load(http, chat, clients, Duration.ofSeconds(3), null); // warm-up
                var samples = Collections.synchronizedList(new ArrayList<Sample>());
                var start = System.nanoTime();
                long killAt = start + TimeUnit.SECONDS.toNanos(seconds) / 2;
                var killer = Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(Duration.ofNanos(killAt - System.nanoTime()));
                        b.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                load(http, chat, clients, Duration.ofSeconds(seconds), samples);
                killer.join();
                long second = TimeUnit.SECONDS.toNanos(1);
                var before = window(samples, start, killAt);
                var lastBefore = window(samples, killAt - second, killAt);
                var firstAfter = window(samples, killAt, killAt + second);
                var after = window(samples, killAt + second, Long.MAX_VALUE);
                System.out.printf("kill: %d clients, %d ms upstream, B stopped after %d s of %d%n", clients, latency,
                        seconds / 2, seconds);
                System.out.printf("%-22s %8s %8s %10s %10s%n", "window", "turns", "failed", "p50 ms", "p99 ms");
                for (var w : List.of(Map.entry("before the kill", before), Map.entry("last second before", lastBefore),
                        Map.entry("first second after", firstAfter), Map.entry("after that", after)))
                    System.out.printf("%-22s %8d %8d %10.1f %10.1f%n", w.getKey(), w.getValue().size(),
                            w.getValue().stream().filter(s -> !s.ok()).count(), percentile(w.getValue(), 50),
                            percentile(w.getValue(), 99));
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static void overhead(Path dist, HttpClient http, int calls, int rounds, boolean aa) throws Exception {
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false);
            upstream.setDefault(Turn.text("ok"));
            var direct = Files.createTempDirectory("overhead-direct");
            var routed = Files.createTempDirectory("overhead-routed");
            if (!aa) Files.writeString(routed.resolve("config.yaml"), """
                    model:
                      deployments:
                        - {base_url: "%s"}
                    """.formatted(upstream.baseUrl()));
            var env = Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
            var a = BenchServer.launch(dist, direct, upstream.baseUrl(), env);
            var b = BenchServer.launch(dist, routed, upstream.baseUrl(), env);
            try {
                var ma = new ArrayList<Double>();
                var mb = new ArrayList<Double>();
                var ca = a.uri().resolve("/v1/chat/completions");
                var cb = b.uri().resolve("/v1/chat/completions");
                sequential(http, ca, 500);
                sequential(http, cb, 500);
                for (int r = 0; r < rounds; r++) {
                    if (r % 2 == 0) {
                        ma.add(median(sequential(http, ca, calls)));
                        mb.add(median(sequential(http, cb, calls)));
                    } else {
                        mb.add(median(sequential(http, cb, calls)));
                        ma.add(median(sequential(http, ca, calls)));
                    }
                }
                double pa = median(ma), pb = median(mb);
                System.out.printf("overhead: %d rounds of %d sequential turns each%n", rounds, calls);
                System.out.printf("no routes (direct): median turn %.3f ms%nrouted (2 deployments): median turn %.3f ms%n"
                        + "difference: %+.1f µs per model call (B/A %.3f)%n", pa, pb, (pb - pa) * 1000, pb / pa);
            } finally {
                for (var s : List.of(a, b)) {
                    s.process().destroy();
                    s.process().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    static List<Sample> window(List<Sample> samples, long from, long to) {
        synchronized (samples) {
            return samples.stream().filter(s -> s.atNanos() >= from && s.atNanos() < to).toList();
        }
    }

    static List<Double> sequential(HttpClient http, URI chat, int n) throws Exception {
        var out = new ArrayList<Double>();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            var response = http.send(request(chat), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) throw new IllegalStateException(response.statusCode() + " " + response.body());
            out.add((System.nanoTime() - t0) / 1e6);
        }
        return out;
    }

    static HttpRequest request(URI chat) {
        return HttpRequest.newBuilder(chat).header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
    }

    /** Closed loop of {@code clients}: each sends the next turn when its answer came; each turn's end time, ms and outcome. */
    static void load(HttpClient http, URI chat, int clients, Duration duration, List<Sample> out) throws Exception {
        var stop = new AtomicBoolean();
        var workers = new ArrayList<CompletableFuture<Void>>();
        var failures = new AtomicInteger();
        for (int i = 0; i < clients; i++) {
            workers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    boolean ok;
                    try {
                        var response = http.send(request(chat), HttpResponse.BodyHandlers.ofString());
                        ok = response.statusCode() == 200 && response.body().contains("an answer") || response.statusCode() == 200
                                && response.body().contains("\"content\":\"ok\"");
                    } catch (Exception e) {
                        ok = false;
                    }
                    if (!ok) failures.incrementAndGet();
                    long t1 = System.nanoTime();
                    if (out != null) out.add(new Sample(t1, (t1 - t0) / 1e6, ok));
                }
            }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()));
        }
        Thread.sleep(duration);
        stop.set(true);
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }

    static double percentile(List<Sample> samples, int p) {
        if (samples.isEmpty()) return Double.NaN;
        var sorted = samples.stream().mapToDouble(Sample::ms).sorted().toArray();
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    static double median(List<Double> values) {
        var sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
