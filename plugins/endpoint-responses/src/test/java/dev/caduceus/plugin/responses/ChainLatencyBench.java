package dev.caduceus.plugin.responses;

import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Files;

/**
 * Not a test: the latency of turn 1, 10, 100 and 1000 of one {@code previous_response_id} chain
 * through the plugin (real SQLite store, zero-delay scripted runs), to show that a turn does not walk
 * the chain. Run with {@code java -cp <test classpath> dev.caduceus.plugin.responses.ChainLatencyBench [turns]}.
 */
public final class ChainLatencyBench {
    private ChainLatencyBench() {}

    public static void main(String[] args) throws Exception {
        int turns = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        var dir = Files.createTempDirectory("responses-bench");
        try (var db = TestDatabase.open(dir, "endpoint-responses")) {
            var api = new ResponsesFixture(db).answers("ok");
            String previous = null;
            for (int turn = 1; turn <= turns; turn++) {
                var body = previous == null ? "{\"input\":\"turn 1\"}"
                        : "{\"input\":\"turn " + turn + "\",\"previous_response_id\":\"" + previous + "\"}";
                long start = System.nanoTime();
                var ex = api.post(body);
                long micros = (System.nanoTime() - start) / 1000;
                previous = ex.responseBody().get("id").asText();
                if (turn == 1 || turn == 10 || turn == 100 || turn == 1000 || turn == turns)
                    System.out.printf("turn %5d: %8.2f ms (history sent: %d messages)%n", turn, micros / 1000.0,
                            api.lastRequest().messages().size());
            }
        }
    }
}
