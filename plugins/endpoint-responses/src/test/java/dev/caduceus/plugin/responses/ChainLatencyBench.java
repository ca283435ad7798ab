package dev.caduceus.plugin.responses;

import dev.caduceus.testkit.TestDatabase;
import java.nio.file.Files;
import java.util.Set;

/**
 * Not a test: the latency of turn 1, 10, 100 and 1000 of one {@code previous_response_id} chain
 * through the plugin (real SQLite store, zero-delay scripted runs), to show that a turn does not walk
 * the chain. Run with {@code java -cp <test classpath> dev.caduceus.plugin.responses.ChainLatencyBench
 * [turns] [auto]}; {@code auto} sends {@code truncation: "auto"} (at most 100 history messages read
 * and sent). Each reported figure is one turn and the mean of the 10 turns ending there.
 */
public final class ChainLatencyBench {
    private static final Set<Integer> REPORTED = Set.of(1, 10, 100, 1000);

    private ChainLatencyBench() {}

    public static void main(String[] args) throws Exception {
        int turns = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        var truncation = args.length > 1 && args[1].equals("auto") ? ",\"truncation\":\"auto\"" : "";
        var dir = Files.createTempDirectory("responses-bench");
        try (var db = TestDatabase.open(dir, "endpoint-responses")) {
            var api = new ResponsesFixture(db).answers("ok");
            String previous = null;
            var window = new long[10];
            for (int turn = 1; turn <= turns; turn++) {
                var body = previous == null ? "{\"input\":\"turn 1\"" + truncation + "}"
                        : "{\"input\":\"turn " + turn + "\",\"previous_response_id\":\"" + previous + "\"" + truncation + "}";
                long start = System.nanoTime();
                var ex = api.post(body);
                long micros = (System.nanoTime() - start) / 1000;
                window[turn % window.length] = micros;
                previous = ex.responseBody().get("id").asText();
                if (REPORTED.contains(turn) || turn == turns) {
                    int n = Math.min(turn, window.length);
                    long sum = 0;
                    for (int i = 0; i < n; i++) sum += window[(turn - i) % window.length];
                    System.out.printf("turn %5d: %8.2f ms, mean of last %2d turns %8.2f ms (history sent: %d messages)%n",
                            turn, micros / 1000.0, n, sum / 1000.0 / n, api.lastRequest().messages().size());
                }
            }
            long messages = db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM response_messages",
                    r -> r.getLong(1)).orElseThrow());
            long bytes = db.read(sql -> sql.queryOne(
                    "SELECT COALESCE(SUM(LENGTH(message_json)), 0) FROM response_messages", r -> r.getLong(1)).orElseThrow());
            System.out.printf("stored: %d chain messages, %d bytes of message JSON%n", messages, bytes);
        }
    }
}
