import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Scheduling precision of the jobs API on the assembled server (zero-delay ScriptedUpstream): creates
 * JOBS one-shot jobs over HTTP, PER_SECOND of them due at each whole second starting a few seconds
 * out, waits until every one has fired, and compares each run's {@code created_at} (when the host
 * recorded the run) with the firing's {@code scheduled_for}, both from {@code GET /api/jobs/{id}/runs}.
 * Prints min, median, p90, max lateness and how many jobs fired more or less than once.
 */
public final class JobPrecisionBench {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        int jobs = 100, perSecond = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--per-second" -> perSecond = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false).setDefault(Turn.text("fired").usage(5, 1));
            var server = BenchServer.launch(dist, Files.createTempDirectory("caduceus-bench"), upstream.baseUrl(), Map.of());
            try {
                run(server.uri(), jobs, perSecond);
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static void run(URI base, int jobs, int perSecond) throws Exception {
        var client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        var first = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        var ids = new ArrayList<String>();
        for (int i = 0; i < jobs; i++) {
            var at = first.plusSeconds(i / perSecond).atOffset(ZoneOffset.UTC);
            var body = JSON.createObjectNode().put("name", "precision " + i).put("schedule", at.toString()).put("prompt", "go");
            var created = send(client, base, "POST", "/api/jobs", body.toString());
            if (created.statusCode() != 201) throw new IllegalStateException(created.body());
            ids.add(JSON.readTree(created.body()).path("job").path("id").asText());
        }
        var span = (jobs - 1) / perSecond;
        System.out.printf("%d one-shot jobs created, %d due per second from %s to %s; waiting for every firing...%n",
                jobs, perSecond, first, first.plusSeconds(span));
        var lateness = new ArrayList<Long>();
        int notOnce = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(span + 60);
        for (var id : ids) {
            JsonNode runs;
            while (true) {
                runs = JSON.readTree(send(client, base, "GET", "/api/jobs/" + id + "/runs", null).body()).path("runs");
                if (runs.size() > 0 && !runs.get(0).path("status").asText().matches("queued|running")) break;
                if (System.nanoTime() > deadline) throw new IllegalStateException("job " + id + " never fired");
                Thread.sleep(100);
            }
            if (runs.size() != 1) notOnce++;
            var run = runs.get(0);
            long planned = OffsetDateTime.parse(run.path("scheduled_for").asText()).toInstant().toEpochMilli();
            long actual = Math.round(run.path("created_at").asDouble() * 1000);
            lateness.add(actual - planned);
        }
        Thread.sleep(2_000);
        for (var id : ids)
            if (JSON.readTree(send(client, base, "GET", "/api/jobs/" + id + "/runs", null).body()).path("runs").size() != 1) notOnce++;
        Collections.sort(lateness);
        System.out.printf(Locale.ROOT, "firings: %d   fired other than exactly once: %d%n", lateness.size(), notOnce);
        System.out.printf(Locale.ROOT, "lateness (run created_at - scheduled_for), ms: min %d  median %d  p90 %d  max %d%n",
                lateness.getFirst(), pct(lateness, 50), pct(lateness, 90), lateness.getLast());
    }

    static long pct(List<Long> sorted, int p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    static HttpResponse<String> send(HttpClient client, URI base, String method, String path, String body) throws Exception {
        var request = HttpRequest.newBuilder(base.resolve(path)).header("Authorization", "Bearer " + BenchServer.KEY)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
