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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cost of a client-tool round trip (issue 42), on the assembled server against a zero-delay scripted upstream,
 * one client at a time, the three kinds interleaved turn by turn so that drift hits all alike:
 * <ul>
 *   <li>plain: one request, one model call (an answer);</li>
 *   <li>server tool: one request, two model calls (the agent calls {@code read_file}, then answers);</li>
 *   <li>client tool: two requests, two model calls (the agent calls the caller's {@code lookup}; the response ends
 *       with {@code tool_calls}; the caller answers at once; the server splices its side back; the answer).</li>
 * </ul>
 * The client-tool round trip is compared with the server-tool turn: the same model calls, plus one HTTP round trip
 * and what the host does to end and resume a turn. Run through {@code bench/client-tools}.
 */
public final class ClientToolsBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"lookup\",\"description\":\"Looks a topic up.\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"topic\":{\"type\":\"string\"}},\"required\":[\"topic\"]}}}]";

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        int turns = Integer.parseInt(arg(args, "--turns", "200"));
        int warmup = Integer.parseInt(arg(args, "--warmup", "50"));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false);
            var server = BenchServer.launch(dist, Files.createTempDirectory("client-tools-bench"), upstream.baseUrl(), Map.of());
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            var chat = server.uri().resolve("/v1/chat/completions");
            try {
                var plain = new ArrayList<Double>();
                var serverTool = new ArrayList<Double>();
                var clientTool = new ArrayList<Double>();
                for (int i = 0; i < warmup + turns; i++) {
                    boolean keep = i >= warmup;
                    double a = plain(http, chat, upstream);
                    double b = serverTool(http, chat, upstream);
                    double c = clientTool(http, chat, upstream);
                    if (keep) { plain.add(a); serverTool.add(b); clientTool.add(c); }
                }
                System.out.printf("turns: %d per kind after %d warm-up each (one client, interleaved)%n", turns, warmup);
                System.out.printf("%-46s %10s %10s%n", "kind", "p50 ms", "p90 ms");
                row("plain turn (1 request, 1 model call)", plain);
                row("server tool turn (1 request, 2 calls)", serverTool);
                row("client tool round trip (2 requests, 2 calls)", clientTool);
                System.out.printf("client tool vs server tool: p50 %+.2f ms (%.2fx)%n",
                        pct(clientTool, 50) - pct(serverTool, 50), pct(clientTool, 50) / pct(serverTool, 50));
            } finally {
                server.process().destroy();
                server.process().waitFor();
            }
        }
    }

    private static double plain(HttpClient http, URI chat, ScriptedUpstream upstream) throws Exception {
        upstream.enqueue(Turn.text("ok").usage(10, 1));
        long start = System.nanoTime();
        post(http, chat, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "stop");
        return (System.nanoTime() - start) / 1e6;
    }

    private static double serverTool(HttpClient http, URI chat, ScriptedUpstream upstream) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_r", "read_file", "{\"path\":\"missing.txt\"}")),
                Turn.text("ok").usage(10, 1));
        long start = System.nanoTime();
        post(http, chat, "{\"messages\":[{\"role\":\"user\",\"content\":\"read it\"}]}", "stop");
        return (System.nanoTime() - start) / 1e6;
    }

    private static double clientTool(HttpClient http, URI chat, ScriptedUpstream upstream) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("up_1", "lookup", "{\"topic\":\"tea\"}")), Turn.text("ok").usage(10, 1));
        long start = System.nanoTime();
        var first = post(http, chat, "{\"tools\":" + TOOLS + ",\"messages\":[{\"role\":\"user\",\"content\":\"look it up\"}]}",
                "tool_calls");
        var call = first.at("/choices/0/message/tool_calls/0");
        post(http, chat, "{\"tools\":" + TOOLS + ",\"messages\":[{\"role\":\"user\",\"content\":\"look it up\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[" + call + "]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"" + call.path("id").asText() + "\",\"content\":\"tea: green\"}]}", "stop");
        return (System.nanoTime() - start) / 1e6;
    }

    private static com.fasterxml.jackson.databind.JsonNode post(HttpClient http, URI chat, String body, String finish)
            throws Exception {
        var request = HttpRequest.newBuilder(chat).header("Authorization", "Bearer " + BenchServer.KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        var response = http.send(request, HttpResponse.BodyHandlers.ofString());
        var json = JSON.readTree(response.body());
        if (response.statusCode() != 200 || !finish.equals(json.at("/choices/0/finish_reason").asText()))
            throw new IllegalStateException(response.statusCode() + " " + response.body());
        return json;
    }

    private static void row(String name, List<Double> ms) {
        System.out.printf("%-46s %10.2f %10.2f%n", name, pct(ms, 50), pct(ms, 90));
    }

    private static double pct(List<Double> values, int p) {
        var sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
