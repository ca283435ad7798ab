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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What watching {@code outputs/} costs a turn (issue 45): build A (before) and build B (after) run side by side,
 * each with its own state directory and a workspace whose {@code outputs/} already holds {@code --files} files; one
 * client sends blocks of chat turns, A's block then B's, the order swapped every round, one kind of turn after
 * the other (each with its own warm-up). Three kinds of turn:
 * {@code text} (no tool: B must do no extra work), {@code read} (one {@code read_file}: B lists {@code outputs/}
 * twice and delivers nothing) and {@code write} (one {@code write_file} under {@code outputs/}: B also keeps the
 * file, which A does not). For each kind and build: the median over rounds of the block's median turn time and of the
 * server's CPU time per turn (utime + stime from /proc, the launcher and its JVM), then B ÷ A. Run through
 * {@code bench/outputs-watch}.
 */
public final class OutputsBench {
    static final String KEY = BenchServer.KEY;

    record Server(String name, BenchServer server, Path workspace) {}

    public static void main(String[] args) throws Exception {
        var distA = Path.of(arg(args, "--dist-a", ""));
        var distB = Path.of(arg(args, "--dist-b", "distribution/target/caduceus"));
        int turns = Integer.parseInt(arg(args, "--turns", "200"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "5"));
        int files = Integer.parseInt(arg(args, "--files", "200"));
        var kinds = List.of("text", "read", "write");
        // results.get(kind).get(build) -> per-round [ms median, cpu µs per turn]
        var results = new LinkedHashMap<String, Map<String, List<double[]>>>();
        for (var kind : kinds) results.put(kind, new LinkedHashMap<>(Map.of("A", new ArrayList<>(), "B", new ArrayList<>())));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false);
            upstream.setDefault(Turn.text("ok"));
            var a = start("A", distA, upstream, files);
            var b = start("B", distB, upstream, files);
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            try {
                // one kind after the other, so that what the write turns leave behind (rows, WAL, garbage) is
                // measured with them and not in the next kind's blocks
                for (var kind : kinds) {
                    for (var s : List.of(a, b)) block(http, upstream, s, kind, 100); // warm-up
                    for (int r = 0; r < rounds; r++) {
                        var order = r % 2 == 0 ? List.of(a, b) : List.of(b, a);
                        for (var s : order) results.get(kind).get(s.name()).add(block(http, upstream, s, kind, turns));
                    }
                    System.err.printf("%s: %d rounds done%n", kind, rounds);
                }
            } finally {
                for (var s : List.of(a, b)) {
                    s.server().process().destroy();
                    s.server().process().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
        System.out.printf("%-6s %12s %12s %8s %16s %16s %8s%n", "turn", "A p50 ms", "B p50 ms", "B/A", "A cpu µs/turn",
                "B cpu µs/turn", "B/A");
        var json = new StringBuilder("{\"turns\":" + turns + ",\"rounds\":" + rounds + ",\"files\":" + files);
        for (var kind : kinds) {
            var ra = results.get(kind).get("A");
            var rb = results.get(kind).get("B");
            double msA = median(ra, 0), msB = median(rb, 0), cpuA = median(ra, 1), cpuB = median(rb, 1);
            System.out.printf("%-6s %12.3f %12.3f %8.3f %16.0f %16.0f %8.3f%n", kind, msA, msB, msB / msA, cpuA, cpuB, cpuB / cpuA);
            json.append(",\"").append(kind).append("\":{\"a_ms\":").append(msA).append(",\"b_ms\":").append(msB)
                    .append(",\"a_cpu_us\":").append(cpuA).append(",\"b_cpu_us\":").append(cpuB).append('}');
        }
        Files.createDirectories(Path.of("bench/results"));
        Files.writeString(Path.of("bench/results/outputs-watch.json"), json.append("}\n").toString());
    }

    static Server start(String name, Path dist, ScriptedUpstream upstream, int files) throws Exception {
        var home = Files.createTempDirectory("outputs-bench-" + name);
        var workspace = Files.createDirectories(home.resolveSibling(home.getFileName() + "-workspace"));
        Files.writeString(workspace.resolve("note.txt"), "Echo: bench\n");
        var outputs = Files.createDirectories(workspace.resolve("outputs"));
        for (int i = 0; i < files; i++) Files.writeString(outputs.resolve("earlier-" + i + ".txt"), "an earlier turn's file " + i);
        var server = BenchServer.launch(dist, home, upstream.baseUrl(), Map.of("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0"));
        return new Server(name, server, workspace);
    }

    /** {@code n} turns of {@code kind} against one server; [median ms, server CPU µs per turn]. */
    static double[] block(HttpClient http, ScriptedUpstream upstream, Server s, String kind, int n) throws Exception {
        var chat = s.server().uri().resolve("/v1/chat/completions");
        var times = new ArrayList<Double>();
        long cpuBefore = cpuMicros(s.server().process());
        for (int i = 0; i < n; i++) times.add(turn(http, chat, upstream, kind, i));
        long cpu = cpuMicros(s.server().process()) - cpuBefore;
        return new double[] {median(times), (double) cpu / n};
    }

    static double turn(HttpClient http, URI chat, ScriptedUpstream upstream, String kind, int i) throws Exception {
        switch (kind) {
            case "read" -> upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "read_file", "{\"path\":\"note.txt\"}")),
                    Turn.text("read"));
            case "write" -> upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_1", "write_file",
                    "{\"path\":\"outputs/turn.txt\",\"content\":\"turn " + i + " of this block\"}")), Turn.text("written"));
            default -> upstream.enqueue(Turn.text("plain"));
        }
        var request = HttpRequest.newBuilder(chat).header("Authorization", "Bearer " + KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}")).build();
        long start = System.nanoTime();
        var response = http.send(request, HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - start) / 1e6;
        if (response.statusCode() != 200) throw new IllegalStateException(kind + ": " + response.statusCode() + " " + response.body());
        return ms;
    }

    /** utime + stime of the process and its descendants (the launcher execs the JVM or starts it), in µs. */
    static long cpuMicros(Process process) throws Exception {
        long ticks = 0;
        var handles = new ArrayList<ProcessHandle>();
        handles.add(process.toHandle());
        process.toHandle().descendants().forEach(handles::add);
        for (var h : handles) {
            var stat = Path.of("/proc/" + h.pid() + "/stat");
            if (!Files.exists(stat)) continue;
            var text = Files.readString(stat);
            var fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15)
        }
        return ticks * 1_000_000 / 100; // USER_HZ is 100 on Linux
    }

    static double median(List<Double> values) {
        var sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static double median(List<double[]> rounds, int index) {
        return median(rounds.stream().map(r -> r[index]).toList());
    }

    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
