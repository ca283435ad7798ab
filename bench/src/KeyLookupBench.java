import dev.caduceus.platform.host.auth.KeyPolicy;
import dev.caduceus.platform.host.auth.NamedKeys;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The cost of authenticating with a named key: non-streaming chat at 64 clients (closed loop, as
 * {@code bench/chat-throughput}) with the admin key (compared in constant time, as before named
 * keys existed) and with a named key (one indexed read of its row per request), first with 1 named
 * key in the store and then with 1,000; after a warm-up with both, the two keys alternate run by
 * run (each going first in turn) so drift hits both.
 * Run through {@code bench/key-lookup}.
 */
public final class KeyLookupBench {
    public static void main(String[] args) throws Exception {
        var dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        int clients = Integer.parseInt(arg(args, "--clients", "64"));
        int repeats = Integer.parseInt(arg(args, "--repeats", "3"));
        var duration = Duration.ofSeconds(Integer.parseInt(arg(args, "--duration", "10")));
        var home = Files.createTempDirectory("key-lookup");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.setDefault(dev.caduceus.platform.testkit.Turn.text("ok").usage(12, 1));
            var server = BenchServer.launch(dist, home, upstream.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            try (var db = Database.open(home.resolve("caduceus.db"))) {
                var keys = new NamedKeys(db, new SecureRandom(), Clock.systemUTC());
                var named = keys.add("bench", KeyPolicy.NONE).key();
                var uri = server.uri().resolve("/v1/chat/completions");
                // JIT warm-up with both keys first: the first runs of a fresh server are a third slower.
                run(uri, BenchServer.KEY, clients, Duration.ofSeconds(10));
                run(uri, named, clients, Duration.ofSeconds(10));
                System.out.println("| named keys in the store | key | req/s (median of " + repeats + ") | p50 ms | p99 ms | errors |");
                System.out.println("|---|---|---|---|---|---|");
                measure(uri, "1", named, clients, repeats, duration);
                for (int i = 1; i < 1000; i++) keys.add("k" + i, KeyPolicy.NONE);
                measure(uri, "1000", named, clients, repeats, duration);
            } finally {
                server.process().destroy();
                server.process().waitFor();
            }
        }
    }

    static void measure(URI uri, String store, String named, int clients, int repeats, Duration duration) throws Exception {
        var admin = new ArrayList<double[]>();
        var mine = new ArrayList<double[]>();
        for (int r = 0; r < repeats; r++) { // alternating which goes first, so drift hits both
            if (r % 2 == 0) {
                admin.add(run(uri, BenchServer.KEY, clients, duration));
                mine.add(run(uri, named, clients, duration));
            } else {
                mine.add(run(uri, named, clients, duration));
                admin.add(run(uri, BenchServer.KEY, clients, duration));
            }
        }
        print(store, "admin", admin);
        print(store, "named", mine);
    }

    static double[] run(URI uri, String key, int clients, Duration duration) throws Exception {
        var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ChatBench.BODY)).build();
        ChatBench.load(client, request, clients, Duration.ofSeconds(3), null);
        var latencies = new ChatBench.Recorder();
        var seconds = ChatBench.load(client, request, clients, duration, latencies);
        var sorted = latencies.sorted();
        return new double[] {sorted.length / seconds, ChatBench.percentile(sorted, 50), ChatBench.percentile(sorted, 99),
                latencies.errors()};
    }

    static void print(String store, String key, List<double[]> runs) {
        long errors = runs.stream().mapToLong(r -> (long) r[3]).sum();
        System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.2f | %.2f | %d |%n", store, key, median(runs, 0), median(runs, 1),
                median(runs, 2), errors);
    }

    static double median(List<double[]> runs, int i) {
        var values = runs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return values[values.length / 2];
    }

    static String arg(String[] args, String name, String def) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return args[i + 1];
        return def;
    }
}
