import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Run event streams: how many concurrent {@code GET /v1/runs/{id}/events} subscribers one server
 * process holds with {@code -Xmx1g}, and how long an event takes from its commit (the event's
 * {@code timestamp}) to each subscriber, at 1, 1,000 and 10,000 subscribers of one run (50,000 where the open-files
 * limit allows). Every subscriber must receive every event, gap-free; misses and connection errors are counted. The
 * subscribers are read by {@link SseReaders}. Run through {@code bench/run-streams}.
 *
 * <p>Each round: a fresh server; one run whose model call is held by the scripted upstream until
 * all subscribers are connected (so connecting is measured separately from delivery); then the
 * upstream streams EVENTS text chunks {@code GAP_MS} apart and the run completes.
 */
public final class RunStreamsBench {
    static final String KEY = BenchServer.KEY;
    /** Selector threads reading the subscribers' sockets ({@link SseReaders}). */
    static final int READER_THREADS = 2;

    record Round(int subscribers, int connected, int connectErrors, double connectSeconds, long heapUsedMiB,
                 long rssMiB, int complete, int incomplete, double p50ms, double p99ms, double maxms) {}

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        List<Integer> counts = List.of(1, 1000, 10000);
        int events = 50;
        int gapMs = 100;
        int warmups = 0;
        int warmupSubscribers = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--subscribers" -> counts = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--gap-ms" -> gapMs = Integer.parseInt(args[++i]);
                case "--warmup-runs" -> warmups = Integer.parseInt(args[++i]);
                case "--warmup-subscribers" -> warmupSubscribers = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --subscribers 1,1000,10000 --events 50 --gap-ms 100 --warmup-runs 0 --warmup-subscribers N --dist DIR");
            }
        }
        var rounds = new ArrayList<Round>();
        for (int n : counts) rounds.add(round(dist, n, events, gapMs, warmups, warmupSubscribers < 0 ? n : warmupSubscribers));
        report(rounds, events, gapMs);
    }

    static Round round(Path dist, int subscribers, int events, int gapMs) throws Exception {
        return round(dist, subscribers, events, gapMs, 0, subscribers);
    }

    /**
     * A fresh server; {@code warmups} runs with {@code warmupSubscribers} each first (their figures are printed, not
     * returned), then the measured one.
     */
    static Round round(Path dist, int subscribers, int events, int gapMs, int warmups, int warmupSubscribers) throws Exception {
        long limit = openFilesLimit();
        if (limit > 0 && subscribers + 200 > limit) // the server and this process each hold a socket per subscriber
            throw new IllegalStateException(subscribers + " subscribers need an open-files limit above " + (subscribers + 200)
                    + " for the server and this process; it is " + limit + " here (ulimit -Hn)");
        try (var upstream = ScriptedUpstream.start()) {
            var chunks = new String[events];
            for (int i = 0; i < events; i++) chunks[i] = "t" + i + " ";
            var gates = new ArrayList<CountDownLatch>();
            for (int run = 0; run <= warmups; run++) {
                var gate = new CountDownLatch(1);
                gates.add(gate);
                upstream.enqueue(body -> {
                    try {
                        gate.await(10, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Turn.textChunks(chunks).chunkDelayMillis(gapMs);
                });
            }
            var home = Files.createTempDirectory("caduceus-bench-streams");
            var javaOpts = "-Xmx1g " + Objects.requireNonNullElse(System.getenv("SERVER_JAVA_OPTS"), ""); // diagnostics
            var server = BenchServer.launch(dist, home, upstream.baseUrl(), Map.of("JAVA_OPTS", javaOpts.strip(),
                    "CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            try {
                Round round = null;
                for (int run = 0; run <= warmups; run++) {
                    round = run < warmups ? run(server, gates.get(run), warmupSubscribers, events, "warm-up run " + (run + 1))
                            : run(server, gates.get(run), subscribers, events, null);
                    if (run < warmups) System.err.printf(Locale.ROOT, "  warm-up run %d: p50 %.0f ms, p99 %.0f ms, max %.0f ms%n",
                            run + 1, round.p50ms(), round.p99ms(), round.maxms());
                }
                return round;
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** One run whose model call waits for {@code gate}, followed by {@code subscribers} from before its first event. */
    private static Round run(BenchServer server, CountDownLatch gate, int subscribers, int events, String warmup) throws Exception {
        var http = HttpClient.newHttpClient();
        var created = http.send(HttpRequest.newBuilder(server.uri().resolve("/v1/runs"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"input\":\"stream to everyone\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 202) throw new IllegalStateException("POST /v1/runs: " + created.body());
        var runId = created.body().replaceAll(".*\"run_id\":\"([^\"]+)\".*", "$1");

        long t0 = System.nanoTime();
        try (var readers = new SseReaders(server.uri(), KEY, runId, subscribers, events + 1, READER_THREADS)) {
            readers.awaitConnected(5, TimeUnit.MINUTES);
            double connectSeconds = (System.nanoTime() - t0) / 1e9;
            Thread.sleep(500); // every handler is parked on the journal
            long heap = warmup != null ? -1 : heapUsedMiB(server.process().pid());
            long rss = rssMiB(server.process().pid());
            int connected = readers.connected.get(), errors = readers.errors.get();
            System.err.printf(Locale.ROOT, "  %d subscribers%s: %d connected, %d errors in %.1f s; heap after GC %d MiB, RSS %d MiB%n",
                    subscribers, warmup == null ? "" : " (" + warmup + ")", connected, errors, connectSeconds, heap, rss);
            gate.countDown();
            readers.awaitEnded(10, TimeUnit.MINUTES);
            long[] all = readers.latencies();
            if (System.getenv("PER_EVENT") != null) {
                var byFrame = readers.latenciesByFrame();
                for (int f = 0; f < byFrame.length; f++)
                    System.err.printf(Locale.ROOT, "    frame %d: min %d p50 %.0f p99 %.0f max %d ms%n", f + 1,
                            byFrame[f].length == 0 ? -1 : byFrame[f][0], pct(byFrame[f], 0.5), pct(byFrame[f], 0.99),
                            byFrame[f].length == 0 ? -1 : byFrame[f][byFrame[f].length - 1]);
            }
            int complete = readers.complete.get();
            for (var what : readers.incomplete(5)) System.err.println("  incomplete subscriber: " + what);
            return new Round(subscribers, connected, errors, connectSeconds, heap, rss, complete,
                    subscribers - complete, pct(all, 0.50), pct(all, 0.99), all.length == 0 ? 0 : all[all.length - 1]);
        }
    }

    /** This process's open-files limit (the server inherits it), or -1 when unknown. */
    static long openFilesLimit() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
    }

    static double pct(long[] sorted, double q) {
        if (sorted.length == 0) return 0;
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }

    /** Heap in use after a full GC, from {@code jcmd GC.heap_info}; -1 when jcmd is unavailable. */
    static long heapUsedMiB(long pid) {
        try {
            var jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            new ProcessBuilder(jcmd, String.valueOf(pid), "GC.run").redirectErrorStream(true).start().waitFor(60, TimeUnit.SECONDS);
            var p = new ProcessBuilder(jcmd, String.valueOf(pid), "GC.heap_info").redirectErrorStream(true).start();
            var text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            var m = Pattern.compile("used (\\d+)K").matcher(text);
            return m.find() ? Long.parseLong(m.group(1)) / 1024 : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    static long rssMiB(long pid) {
        try {
            for (var line : Files.readAllLines(Path.of("/proc/" + pid + "/status")))
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D+", "")) / 1024;
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    static void report(List<Round> rounds, int events, int gapMs) throws Exception {
        System.out.printf(Locale.ROOT, "Run event streams: one run, %d text events %d ms apart, N subscribers, server -Xmx1g%n",
                events, gapMs);
        System.out.printf(Locale.ROOT, "%-12s %10s %8s %10s %10s %9s %10s %12s %9s %9s %9s %8s%n", "subscribers", "connected",
                "errors", "connect s", "heap MiB", "RSS MiB", "complete", "incomplete", "p50 ms", "p99 ms", "max ms", "p50 x1");
        double base = rounds.isEmpty() ? 0 : Math.max(1, rounds.getFirst().p50ms());
        var json = new StringBuilder("[");
        for (var r : rounds) {
            System.out.printf(Locale.ROOT, "%-12d %10d %8d %10.1f %10d %9d %10d %12d %9.0f %9.0f %9.0f %8.1f%n", r.subscribers(),
                    r.connected(), r.connectErrors(), r.connectSeconds(), r.heapUsedMiB(), r.rssMiB(), r.complete(),
                    r.incomplete(), r.p50ms(), r.p99ms(), r.maxms(), r.p50ms() / base);
            if (json.length() > 1) json.append(',');
            json.append(String.format(Locale.ROOT, "{\"subscribers\":%d,\"connected\":%d,\"connect_errors\":%d,\"connect_seconds\":%.2f,"
                            + "\"heap_used_mib\":%d,\"rss_mib\":%d,\"complete\":%d,\"incomplete\":%d,\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"max_ms\":%.1f}",
                    r.subscribers(), r.connected(), r.connectErrors(), r.connectSeconds(), r.heapUsedMiB(), r.rssMiB(), r.complete(),
                    r.incomplete(), r.p50ms(), r.p99ms(), r.maxms()));
        }
        json.append(']');
        Files.createDirectories(Path.of("bench/results"));
        Files.writeString(Path.of("bench/results/run-streams.json"), json + "\n");
        System.out.println("Latency = receipt time minus the event's timestamp (set when the event is journaled; ms precision, same clock).");
        System.out.println("Raw figures: bench/results/run-streams.json");
    }
}
