import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The cost of the sandbox per terminal command: two servers, one with
 * {@code tools.terminal.backend: local} and one with {@code sandbox}, each asked for the same chat
 * turn in which the model calls {@code terminal} with {@code echo hi}; the two alternate call by
 * call (so machine drift hits both), after a warm-up. Prints the median, p90 and min turn time of
 * each and the median difference, which is the sandbox's own cost (the rest of the turn is the same).
 */
public class TerminalSandboxBench {
    public static void main(String[] args) throws Exception {
        Path dist = null;
        int calls = 100;
        int warmup = 20;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        var http = HttpClient.newHttpClient();
        try (var upstream = ScriptedUpstream.start().recordRequests(false)) {
            var local = BenchServer.launch(dist, Files.createTempDirectory("bench-local-"), upstream.baseUrl(),
                    Map.of("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local"));
            var sandbox = BenchServer.launch(dist, Files.createTempDirectory("bench-sandbox-"), upstream.baseUrl(),
                    Map.of("CADUCEUS__TOOLS__TERMINAL__BACKEND", "sandbox"));
            try {
                var localTimes = new ArrayList<Double>();
                var sandboxTimes = new ArrayList<Double>();
                for (int i = 0; i < warmup + calls; i++) {
                    double l = turn(http, upstream, local.uri());
                    double s = turn(http, upstream, sandbox.uri());
                    if (i >= warmup) {
                        localTimes.add(l);
                        sandboxTimes.add(s);
                    }
                }
                var diffs = new ArrayList<Double>();
                for (int i = 0; i < calls; i++) diffs.add(sandboxTimes.get(i) - localTimes.get(i));
                System.out.printf("terminal `echo hi` per chat turn, %d alternating calls after %d warm-up%n", calls, warmup);
                System.out.printf("%-8s %10s %10s %10s%n", "backend", "median ms", "p90 ms", "min ms");
                print("local", localTimes);
                print("sandbox", sandboxTimes);
                System.out.printf("sandbox cost per command: median of paired differences %.2f ms%n", median(diffs));
            } finally {
                local.process().destroy();
                sandbox.process().destroy();
                local.process().waitFor();
                sandbox.process().waitFor();
            }
        }
    }

    static double turn(HttpClient http, ScriptedUpstream upstream, URI base) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_echo", "terminal", "{\"command\":\"echo hi\"}")));
        upstream.enqueue(Turn.text("done"));
        var request = HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Authorization", "Bearer " + BenchServer.KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"echo\"}]}"))
                .build();
        long t0 = System.nanoTime();
        var response = http.send(request, HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - t0) / 1e6;
        if (response.statusCode() != 200) throw new IllegalStateException(response.statusCode() + " " + response.body());
        return ms;
    }

    static void print(String name, List<Double> times) {
        var sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        System.out.printf("%-8s %10.2f %10.2f %10.2f%n", name, median(times), sorted.get((int) (sorted.size() * 0.9)),
                sorted.getFirst());
    }

    static double median(List<Double> values) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
