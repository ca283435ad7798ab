import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the relay adds (proxy mode): the same requests sent to a back instance directly
 * and through a front instance whose relay runs every turn on that back, interleaved in one run.
 * Non-streaming chat latency (p50/p99) and streaming time to first content token and to
 * {@code [DONE]} (p50/p99, plus content chunks/s). One client at a time. Run through
 * {@code bench/relay-overhead}.
 */
public final class RelayBench {
    static final String KEY = BenchServer.KEY;
    static final String PLAIN = "{\"messages\":[{\"role\":\"user\",\"content\":\"Say ok\"}]}";
    static final String STREAM = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Talk\"}]}";

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        int requests = Integer.parseInt(arg(args, "--requests", "300"));
        int streams = Integer.parseInt(arg(args, "--streams", "60"));
        int chunks = Integer.parseInt(arg(args, "--chunks", "200"));
        var pieces = new String[chunks];
        Arrays.fill(pieces, "token-text ");
        try (var upstream = ScriptedUpstream.start()) {
            var unlimited = Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
            var back = BenchServer.launch(dist, Files.createTempDirectory("relay-bench-back"), upstream.baseUrl(), unlimited);
            var frontEnv = new java.util.HashMap<>(unlimited);
            frontEnv.put("GATEWAY_PROXY_URL", back.uri().toString());
            frontEnv.put("GATEWAY_PROXY_KEY", KEY);
            var front = BenchServer.launch(dist, Files.createTempDirectory("relay-bench-front"), upstream.baseUrl(), frontEnv);
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            try {
                URI backChat = back.uri().resolve("/v1/chat/completions");
                URI frontChat = front.uri().resolve("/v1/chat/completions");
                upstream.setDefault(Turn.text("ok").usage(12, 1));
                for (int i = 0; i < 50; i++) { plain(http, backChat); plain(http, frontChat); } // warm-up
                var backMs = new ArrayList<Double>();
                var frontMs = new ArrayList<Double>();
                for (int i = 0; i < requests; i++) {
                    backMs.add(plain(http, backChat));
                    frontMs.add(plain(http, frontChat));
                }
                upstream.setDefault(Turn.textChunks(pieces).usage(12, chunks));
                for (int i = 0; i < 10; i++) { stream(http, backChat); stream(http, frontChat); }
                var backStream = new ArrayList<double[]>();
                var frontStream = new ArrayList<double[]>();
                for (int i = 0; i < streams; i++) {
                    backStream.add(stream(http, backChat));
                    frontStream.add(stream(http, frontChat));
                }
                System.out.printf("relay overhead: %d plain chats and %d streams of %d chunks per target, one client, interleaved%n",
                        requests, streams, chunks);
                System.out.printf("%-14s %10s %10s %12s %12s %12s %12s %12s%n", "target", "chat p50", "chat p99",
                        "ttft p50", "ttft p99", "done p50", "done p99", "chunks/s");
                var rows = new StringBuilder("[");
                for (var row : List.of(new Object[]{"back alone", backMs, backStream}, new Object[]{"front -> back", frontMs, frontStream})) {
                    @SuppressWarnings("unchecked") var lat = (List<Double>) row[1];
                    @SuppressWarnings("unchecked") var st = (List<double[]>) row[2];
                    var ttft = st.stream().map(a -> a[0]).toList();
                    var done = st.stream().map(a -> a[1]).toList();
                    double rate = chunks / (pct(done, 50) / 1000.0);
                    System.out.printf("%-14s %8.2fms %8.2fms %10.2fms %10.2fms %10.2fms %10.2fms %12.0f%n", row[0],
                            pct(lat, 50), pct(lat, 99), pct(ttft, 50), pct(ttft, 99), pct(done, 50), pct(done, 99), rate);
                    if (rows.length() > 1) rows.append(',');
                    rows.append("{\"target\":\"%s\",\"chat_p50_ms\":%.3f,\"chat_p99_ms\":%.3f,\"ttft_p50_ms\":%.3f,\"ttft_p99_ms\":%.3f,\"done_p50_ms\":%.3f,\"done_p99_ms\":%.3f,\"chunks_per_s\":%.0f}"
                            .formatted(row[0], pct(lat, 50), pct(lat, 99), pct(ttft, 50), pct(ttft, 99), pct(done, 50), pct(done, 99), rate));
                }
                rows.append(']');
                Files.createDirectories(Path.of("bench/results"));
                Files.writeString(Path.of("bench/results/relay-overhead.json"), rows + "\n");
            } finally {
                front.process().destroy();
                back.process().destroy();
                front.process().waitFor(30, TimeUnit.SECONDS);
                back.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static double plain(HttpClient http, URI uri) throws Exception {
        long t0 = System.nanoTime();
        var response = http.send(request(uri, PLAIN), HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - t0) / 1e6;
        if (response.statusCode() != 200) throw new IllegalStateException(uri + " answered " + response.statusCode() + ": " + response.body());
        return ms;
    }

    /** {time to first content chunk, time to [DONE]} in ms. */
    static double[] stream(HttpClient http, URI uri) throws Exception {
        long t0 = System.nanoTime();
        var response = http.send(request(uri, STREAM), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) throw new IllegalStateException(uri + " answered " + response.statusCode());
        double first = -1;
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (first < 0 && line.contains("\"content\":\"")) first = (System.nanoTime() - t0) / 1e6;
                if (line.equals("data: [DONE]")) return new double[]{first, (System.nanoTime() - t0) / 1e6};
            }
        }
        throw new IllegalStateException("stream from " + uri + " ended without [DONE]");
    }

    static HttpRequest request(URI uri, String body) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    static double pct(List<Double> values, int p) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
