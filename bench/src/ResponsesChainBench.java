import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One /v1/responses conversation chained with previous_response_id for N turns through the real
 * server (zero-delay ScriptedUpstream): prints the latency of turns 1, 10, 100, 1000 (and the mean of
 * the 10 turns ending there), with and without truncation:auto. Run through bench/responses-chain.
 */
public final class ResponsesChainBench {
    static final String KEY = BenchServer.KEY;
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        var dist = Path.of(args.length > 0 ? args[0] : "distribution/target/caduceus");
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        var marks = List.of(1, 10, 100, 1000).stream().filter(t -> t <= turns).toList();
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false).setDefault(Turn.text("ok").usage(12, 1));
            var server = BenchServer.launch(dist, Files.createTempDirectory("caduceus-bench"), upstream.baseUrl(), Map.of());
            try {
                var uri = server.uri().resolve("/v1/responses");
                var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                System.out.printf("Responses chain of %d turns (previous_response_id), ms per turn: that turn / mean of the 10 ending there%n", turns);
                System.out.printf("%-8s | %-26s | %-26s%n", "turn", "full history", "truncation: auto");
                var full = chain(client, uri, turns, false);
                var auto = chain(client, uri, turns, true);
                for (int t : marks)
                    System.out.printf(Locale.ROOT, "%-8d | %8.2f / %8.2f          | %8.2f / %8.2f%n", t,
                            full[t - 1], mean(full, t), auto[t - 1], mean(auto, t));
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static double[] chain(HttpClient client, URI uri, int turns, boolean truncate) throws Exception {
        var millis = new double[turns];
        String previous = null;
        for (int i = 0; i < turns; i++) {
            var body = JSON.createObjectNode().put("input", "turn " + (i + 1));
            if (previous != null) body.put("previous_response_id", previous);
            if (truncate) body.put("truncation", "auto");
            var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
            long t0 = System.nanoTime();
            var response = client.send(request, HttpResponse.BodyHandlers.ofString());
            millis[i] = (System.nanoTime() - t0) / 1e6;
            if (response.statusCode() != 200) throw new IllegalStateException("turn " + (i + 1) + ": " + response.body());
            previous = JSON.readTree(response.body()).path("id").asText();
        }
        return millis;
    }

    static double mean(double[] values, int upTo) {
        int from = Math.max(0, upTo - 10);
        double sum = 0;
        for (int i = from; i < upTo; i++) sum += values[i];
        return sum / (upTo - from);
    }

}
