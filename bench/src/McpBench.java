import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What an MCP tool call costs next to a native tool: one client at a time, each chat turn asks for
 * one tool call (the scripted upstream) and then answers; the three kinds of turn are interleaved
 * (MCP over stdio, MCP over streamable HTTP, native read_file) so that machine noise hits each alike.
 * Reports the median and p90 turn time of each and the MCP medians minus the native one. Run through
 * {@code bench/mcp-overhead}.
 */
public final class McpBench {
    static final String KEY = BenchServer.KEY;

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(arg(args, "--dist", "distribution/target/caduceus"));
        Path modules = Path.of(arg(args, "--modules", "distribution/target/mcp-npm/node_modules"));
        int calls = Integer.parseInt(arg(args, "--calls", "200"));
        Path everything = modules.resolve("@modelcontextprotocol/server-everything/dist/index.js");
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        var httpServer = new ProcessBuilder("node", everything.toString(), "streamableHttp").redirectErrorStream(true);
        httpServer.environment().put("PORT", String.valueOf(port));
        var node = httpServer.start();
        var listening = new CompletableFuture<Void>();
        Thread.ofVirtual().start(() -> {
            try (var lines = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) if (line.contains("listening on port")) listening.complete(null);
            } catch (Exception e) {
                listening.completeExceptionally(e);
            }
        });
        listening.get(60, TimeUnit.SECONDS);
        var home = Files.createTempDirectory("mcp-bench");
        Files.writeString(home.resolve("config.yaml"), """
                mcp_servers:
                  stdio:
                    command: node
                    args: ["%s", "stdio"]
                  http:
                    url: "http://127.0.0.1:%d/mcp"
                """.formatted(everything, port));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false);
            var server = BenchServer.launch(dist, home, upstream.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
            Files.writeString(workspace(home).resolve("note.txt"), "Echo: bench\n");
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            var kinds = new LinkedHashMap<String, String[]>();
            kinds.put("native read_file", new String[] {"read_file", "{\"path\":\"note.txt\"}"});
            kinds.put("MCP stdio echo", new String[] {"mcp_stdio_echo", "{\"message\":\"bench\"}"});
            kinds.put("MCP HTTP echo", new String[] {"mcp_http_echo", "{\"message\":\"bench\"}"});
            var times = new LinkedHashMap<String, List<Double>>();
            kinds.keySet().forEach(k -> times.put(k, new ArrayList<>()));
            try {
                URI chat = server.uri().resolve("/v1/chat/completions");
                for (int i = 0; i < 30; i++) for (var kind : kinds.values()) turn(http, chat, upstream, kind); // warm-up
                for (int i = 0; i < calls; i++)
                    for (var kind : kinds.entrySet()) times.get(kind.getKey()).add(turn(http, chat, upstream, kind.getValue()));
            } finally {
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
                node.destroy();
            }
            double nativeMedian = percentile(times.get("native read_file"), 50);
            var json = new StringBuilder("{\"calls\":" + calls);
            System.out.printf("%-18s %10s %10s %14s%n", "tool", "p50 ms", "p90 ms", "p50 - native");
            for (var entry : times.entrySet()) {
                double p50 = percentile(entry.getValue(), 50);
                double p90 = percentile(entry.getValue(), 90);
                System.out.printf("%-18s %10.3f %10.3f %14.3f%n", entry.getKey(), p50, p90, p50 - nativeMedian);
                json.append(",\"").append(entry.getKey()).append("\":{\"p50_ms\":").append(p50).append(",\"p90_ms\":").append(p90).append('}');
            }
            Files.createDirectories(Path.of("bench/results"));
            Files.writeString(Path.of("bench/results/mcp-overhead.json"), json.append("}\n").toString());
        }
    }

    private static Path workspace(Path home) throws Exception {
        var workspace = home.resolveSibling(home.getFileName() + "-workspace");
        Files.createDirectories(workspace);
        return workspace;
    }

    /** One chat turn that calls {@code kind}'s tool once and answers with its result; returns the turn's ms. */
    private static double turn(HttpClient http, URI chat, ScriptedUpstream upstream, String[] kind) throws Exception {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", kind[0], kind[1])));
        upstream.enqueue(Turn::quotingLastToolResult);
        var request = HttpRequest.newBuilder(chat).header("Authorization", "Bearer " + KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}")).build();
        long start = System.nanoTime();
        var response = http.send(request, HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - start) / 1e6;
        if (response.statusCode() != 200 || !response.body().contains("Echo: bench"))
            throw new IllegalStateException(kind[0] + ": " + response.statusCode() + " " + response.body());
        return ms;
    }

    private static double percentile(List<Double> values, int p) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
