import dev.caduceus.testkit.ScriptedUpstream;
import dev.caduceus.testkit.Turn;
import dev.caduceus.testkit.postgres.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The store's cost and the cluster's: the same loads against one node on SQLite, one node on
 * PostgreSQL and two nodes on one PostgreSQL (the load split between them), all on this machine, and the
 * delivery latency of a run's events to a subscriber on the node executing it vs on another node.
 *
 * <p>Loads (closed loop, JDK HttpClient on virtual threads, after a warm-up of the same length):
 * non-streaming chat at 64 clients (S1's shape: one agent turn and one session write per request) and
 * durable runs at 16 clients (POST /v1/runs, then its event stream read to the end). The PostgreSQL
 * server is a throwaway cluster from Debian's binaries (testkit-postgres) with fsync off, as the tests
 * use: read the ratios, not the absolute numbers.
 *
 * <p>Usage: {@code bench/cluster [--seconds 10] [--repeats 3]} (run from the repository after
 * {@code mvn -B -q package -DskipTests}).
 */
public class ClusterBench {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final Pattern TIMESTAMP = Pattern.compile("\"timestamp\":([0-9.]+)");
    static final Pattern RUN_ID = Pattern.compile("\"run_id\":\"(run_[0-9a-f]+)\"");
    static final String CHAT = "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        int seconds = 10;
        int repeats = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        var duration = Duration.ofSeconds(seconds);
        var warmup = Duration.ofSeconds(Math.max(1, seconds / 2));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.setDefault(Turn.text("ok"));
            var pg = TestPostgres.shared();
            Map<String, double[]> results = new java.util.LinkedHashMap<>();
            for (String config : List.of("sqlite-1", "postgresql-1", "postgresql-2")) {
                var nodes = start(config, dist, upstream, pg);
                try {
                    double chat = median(repeats, () -> load(nodes, 64, duration, warmup, ClusterBench::chat));
                    double runs = median(repeats, () -> load(nodes, 16, duration, warmup, ClusterBench::run));
                    results.put(config, new double[] {chat, runs});
                } finally {
                    nodes.forEach(n -> n.process().destroy());
                    for (var n : nodes) n.process().waitFor();
                }
            }
            double[] base = results.get("sqlite-1");
            System.out.println("| store | chat req/s (64 clients) | ratio | runs/s (16 clients) | ratio |");
            System.out.println("|---|---|---|---|---|");
            results.forEach((k, v) -> System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f× | %.1f | %.2f× |%n", k, v[0],
                    v[0] / base[0], v[1], v[1] / base[1]));
            latency(dist, upstream, pg);
        }
    }

    interface Call {
        boolean call(URI base) throws Exception;
    }

    interface Measure {
        double run() throws Exception;
    }

    static double median(int repeats, Measure m) throws Exception {
        var values = new ArrayList<Double>();
        for (int i = 0; i < repeats; i++) values.add(m.run());
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    static List<BenchServer> start(String config, Path dist, ScriptedUpstream upstream, TestPostgres pg) throws Exception {
        int count = config.endsWith("-2") ? 2 : 1;
        var env = new HashMap<String, String>();
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
        if (config.startsWith("postgresql")) env.put("CADUCEUS_DATABASE_URL", pg.newDatabase().url());
        var nodes = new ArrayList<BenchServer>();
        for (int i = 0; i < count; i++)
            nodes.add(BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env));
        return nodes;
    }

    /** Requests per second over {@code duration} after {@code warmup}; clients alternate the nodes. */
    static double load(List<BenchServer> nodes, int clients, Duration duration, Duration warmup, Call call) throws Exception {
        var stop = new AtomicBoolean();
        var counting = new AtomicBoolean();
        var done = new AtomicLong();
        var errors = new AtomicLong();
        var finished = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            var base = nodes.get(c % nodes.size()).uri();
            Thread.ofVirtual().start(() -> {
                try {
                    while (!stop.get()) {
                        boolean ok = call.call(base);
                        if (counting.get()) (ok ? done : errors).incrementAndGet();
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                } finally {
                    finished.countDown();
                }
            });
        }
        Thread.sleep(warmup.toMillis());
        counting.set(true);
        long started = System.nanoTime();
        Thread.sleep(duration.toMillis());
        counting.set(false);
        double elapsed = (System.nanoTime() - started) / 1e9;
        stop.set(true);
        finished.await();
        if (errors.get() > 0) System.err.println("  " + errors.get() + " failed requests");
        return done.get() / elapsed;
    }

    static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + BenchServer.KEY).header("Content-Type", "application/json");
    }

    static boolean chat(URI base) throws Exception {
        var r = HTTP.send(request(base.resolve("/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(),
                HttpResponse.BodyHandlers.discarding());
        return r.statusCode() == 200;
    }

    static boolean run(URI base) throws Exception {
        var created = HTTP.send(request(base.resolve("/v1/runs")).POST(HttpRequest.BodyPublishers.ofString("{\"input\":\"hi\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 202) return false;
        var m = RUN_ID.matcher(created.body());
        if (!m.find()) return false;
        var events = HTTP.send(request(base.resolve("/v1/runs/" + m.group(1) + "/events")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return events.statusCode() == 200 && events.body().contains("run.completed");
    }

    /**
     * One run on node A streaming 200 chunks 20 ms apart, read at once by a subscriber on A and one on B:
     * each frame's receipt time minus its journal timestamp, p50/p99 per side.
     */
    static void latency(Path dist, ScriptedUpstream upstream, TestPostgres pg) throws Exception {
        var env = Map.of("CADUCEUS_DATABASE_URL", pg.newDatabase().url());
        var a = BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env);
        var b = BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env);
        try {
            var same = Collections.synchronizedList(new ArrayList<Double>());
            var cross = Collections.synchronizedList(new ArrayList<Double>());
            for (int round = 0; round < 3; round++) {
                var chunks = new String[200];
                for (int i = 0; i < chunks.length; i++) chunks[i] = "t" + i + " ";
                upstream.enqueue(Turn.textChunks(chunks).chunkDelayMillis(20));
                var created = HTTP.send(request(a.uri().resolve("/v1/runs")).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"input\":\"stream\"}")).build(), HttpResponse.BodyHandlers.ofString());
                var m = RUN_ID.matcher(created.body());
                if (!m.find()) throw new IllegalStateException(created.body());
                String runId = m.group(1);
                var readers = new ArrayList<Thread>();
                for (var side : List.of(Map.entry(a, same), Map.entry(b, cross))) {
                    readers.add(Thread.ofVirtual().start(() -> {
                        try {
                            var lines = HTTP.send(request(side.getKey().uri().resolve("/v1/runs/" + runId + "/events")).GET().build(),
                                    HttpResponse.BodyHandlers.ofLines());
                            lines.body().forEach(line -> {
                                var t = TIMESTAMP.matcher(line);
                                if (line.startsWith("data:") && t.find())
                                    side.getValue().add(System.currentTimeMillis() - Double.parseDouble(t.group(1)) * 1000);
                            });
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                for (var t : readers) t.join();
            }
            System.out.printf(Locale.ROOT, "%nEvent delivery (receipt minus journal timestamp, %d and %d frames):%n", same.size(), cross.size());
            System.out.println("| subscriber | p50 ms | p99 ms |");
            System.out.println("|---|---|---|");
            System.out.printf(Locale.ROOT, "| same node (A) | %.1f | %.1f |%n", pct(same, 50), pct(same, 99));
            System.out.printf(Locale.ROOT, "| other node (B) | %.1f | %.1f |%n", pct(cross, 50), pct(cross, 99));
        } finally {
            a.process().destroy();
            b.process().destroy();
            a.process().waitFor();
            b.process().waitFor();
        }
    }

    static double pct(List<Double> values, int p) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        if (sorted.isEmpty()) return Double.NaN;
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }
}
