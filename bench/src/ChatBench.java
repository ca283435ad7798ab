import dev.caduceus.platform.testkit.ScriptedUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Non-streaming chat completions: requests/s and latency at 1, 16 and 64 concurrent clients (closed
 * loop), Caduceus (one agent turn per request against a zero-delay scripted upstream) side by side
 * with the same load sent straight to that upstream. Run through {@code bench/chat-throughput}.
 */
public final class ChatBench {
    static final String KEY = BenchServer.KEY;
    static final String BODY = "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"Say ok\"}]}";

    record Sample(String target, int clients, int repeat, long requests, long errors, double seconds,
                  double rps, double p50ms, double p99ms) {}

    public static void main(String[] args) throws Exception {
        var options = Options.parse(args);
        try (var upstream = ScriptedUpstream.start()) {
            upstream.setDefault(dev.caduceus.platform.testkit.Turn.text("ok").usage(12, 1));
            var home = Files.createTempDirectory("caduceus-bench");
            var server = BenchServer.launch(options.dist, home, upstream.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            try {
                var caduceus = server.uri().resolve("/v1/chat/completions");
                var direct = URI.create(upstream.baseUrl() + "/chat/completions");
                var samples = new ArrayList<Sample>();
                for (int clients : options.clients) {
                    for (int repeat = 1; repeat <= options.repeats; repeat++) {
                        samples.add(run("upstream direct", direct, clients, repeat, options));
                        samples.add(run("caduceus", caduceus, clients, repeat, options));
                    }
                }
                report(samples, options);
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static Sample run(String target, URI uri, int clients, int repeat, Options options) throws Exception {
        var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
        load(client, request, clients, options.warmup, null);           // warm-up, discarded
        var latencies = new Recorder();
        var seconds = load(client, request, clients, options.duration, latencies);
        var sorted = latencies.sorted();
        return new Sample(target, clients, repeat, sorted.length, latencies.errors(), seconds,
                sorted.length / seconds, percentile(sorted, 50), percentile(sorted, 99));
    }

    /** Closed loop: each client sends the next request when the previous answer arrived. */
    static double load(HttpClient client, HttpRequest request, int clients, Duration duration, Recorder out)
            throws Exception {
        var stop = new AtomicBoolean();
        var workers = new ArrayList<CompletableFuture<Void>>();
        var start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            workers.add(CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    var t0 = System.nanoTime();
                    try {
                        var response = client.send(request, HttpResponse.BodyHandlers.ofString());
                        if (out != null) out.record(System.nanoTime() - t0, response.statusCode() == 200);
                    } catch (Exception e) {
                        if (out != null) out.record(0, false);
                    }
                }
            }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()));
        }
        Thread.sleep(duration.toMillis());
        stop.set(true);
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        return (System.nanoTime() - start) / 1e9;
    }

    static double percentile(long[] sorted, int p) {
        if (sorted.length == 0) return Double.NaN;
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, index)] / 1e6;
    }

    static void report(List<Sample> samples, Options options) throws Exception {
        System.out.println();
        System.out.printf("Non-streaming chat completions, %s per run, %d repeats, medians of repeats%n",
                options.duration, options.repeats);
        System.out.printf("%-8s | %-28s | %-28s | %s%n", "clients", "upstream direct: req/s  p50 ms",
                "caduceus: req/s  p50 ms  p99", "caduceus/direct req/s");
        var json = new StringBuilder("{\"when\":\"" + Instant.now() + "\",\"samples\":[");
        for (int clients : options.clients) {
            var direct = median(samples, "upstream direct", clients);
            var ours = median(samples, "caduceus", clients);
            System.out.printf(Locale.ROOT, "%-8d | %10.0f %10.2f        | %8.0f %8.2f %8.2f    | %.2f%n", clients,
                    direct[0], direct[1], ours[0], ours[1], ours[2], ours[0] / direct[0]);
        }
        for (int i = 0; i < samples.size(); i++) {
            var s = samples.get(i);
            json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"target\":\"%s\",\"clients\":%d,\"repeat\":%d,\"requests\":%d,\"errors\":%d,\"seconds\":%.3f,"
                            + "\"rps\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f}",
                    s.target(), s.clients(), s.repeat(), s.requests(), s.errors(), s.seconds(), s.rps(), s.p50ms(),
                    s.p99ms()));
        }
        json.append("]}");
        Files.createDirectories(options.out.getParent());
        Files.writeString(options.out, json);
        System.out.println("raw figures: " + options.out);
        var errors = samples.stream().mapToLong(Sample::errors).sum();
        if (errors > 0) System.out.println("WARNING: " + errors + " requests failed (non-200 or transport error)");
    }

    /** Median over repeats of {rps, p50, p99}. */
    static double[] median(List<Sample> samples, String target, int clients) {
        var rows = samples.stream().filter(s -> s.target().equals(target) && s.clients() == clients).toList();
        return new double[] {med(rows.stream().mapToDouble(Sample::rps).toArray()),
                med(rows.stream().mapToDouble(Sample::p50ms).toArray()),
                med(rows.stream().mapToDouble(Sample::p99ms).toArray())};
    }

    static double med(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** Latencies of successful requests, in nanoseconds. Thread-safe. */
    static final class Recorder {
        private final List<Long> nanos = new ArrayList<>();
        private long errors;

        synchronized void record(long elapsed, boolean ok) {
            if (ok) nanos.add(elapsed); else errors++;
        }

        synchronized long[] sorted() {
            return nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        }

        synchronized long errors() { return errors; }
    }

    record Options(Path dist, List<Integer> clients, int repeats, Duration warmup, Duration duration, Path out) {
        static Options parse(String[] args) {
            Map<String, String> map = new LinkedHashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) map.put(args[i].replaceFirst("^--", ""), args[i + 1]);
            return new Options(Path.of(map.getOrDefault("dist", "distribution/target/caduceus")),
                    Arrays.stream(map.getOrDefault("clients", "1,16,64").split(",")).map(Integer::parseInt).toList(),
                    Integer.parseInt(map.getOrDefault("repeats", "3")),
                    Duration.ofSeconds(Long.parseLong(map.getOrDefault("warmup", "3"))),
                    Duration.ofSeconds(Long.parseLong(map.getOrDefault("duration", "10"))),
                    Path.of(map.getOrDefault("out", "bench/results/chat-throughput.json")));
        }
    }
}
