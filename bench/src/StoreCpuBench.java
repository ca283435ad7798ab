import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.net.URI;
import java.net.http.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

/**
 * Where the CPU of a chat turn goes by process, on SQLite or PostgreSQL (issue 41): one node, non-streaming chat
 * at 64 clients with a session each (closed loop, JDK HttpClient on virtual threads), a warm-up round, then ROUNDS
 * rounds of SECONDS; per round req/s and CPU µs per turn of the node, of PostgreSQL's processes (by kind:
 * backends, WAL writer, ...) and of this JVM (the load and the ScriptedUpstream), from /proc. PROFILE=FILE also
 * writes async-profiler's collapsed CPU stacks of the node during the last round (ASYNC_PROFILER_LIB names
 * libasyncProfiler.so).
 *
 * <p>Usage: {@code bench/store-cpu DIST [pg|sqlite] [SECONDS 20] [ROUNDS 3]}.
 */
public class StoreCpuBench {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final long CLOCK_TICK_NANOS = 10_000_000; // /proc's CPU times are in 1/100 s (USER_HZ)

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args[0]);
        String store = args.length > 1 ? args[1] : "pg";
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        String profile = System.getenv("PROFILE");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false).setDefault(Turn.text("ok"));
            var env = new HashMap<String, String>();
            env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
            if (profile != null)
                env.put("JAVA_OPTS", "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:+EnableDynamicAgentLoading");
            if (store.equals("pg")) env.put("CADUCEUS_DATABASE_URL", TestPostgres.shared().newDatabase().url());
            var node = BenchServer.launch(dist, Files.createTempDirectory("store-cpu"), upstream.baseUrl(), env);
            try {
                long pid = node.process().pid();
                load(node.uri(), seconds, pid); // warm-up
                for (int r = 0; r < rounds; r++) {
                    boolean profiled = profile != null && r == rounds - 1;
                    if (profiled) attach(pid, "start,event=cpu,interval=200us");
                    var round = load(node.uri(), seconds, pid);
                    if (profiled) attach(pid, "stop,file=" + profile + ",collapsed");
                    print(r, round);
                }
            } finally {
                node.process().destroy();
                node.process().waitFor();
            }
        }
    }

    /** CPU ticks so far of the node, of PostgreSQL's processes by kind, and of this JVM; at {@code nanos}. */
    record Sample(long nanos, long node, Map<String, Long> postgres, long self) {
        static Sample take(long nodePid) throws Exception {
            return new Sample(System.nanoTime(), ticks(nodePid), postgresByKind(), ticks(ProcessHandle.current().pid()));
        }

        long postgresTotal() {
            return postgres.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** A round: the turns completed between two samples. */
    record Round(long turns, Sample a, Sample b) {}

    static void print(int round, Round measured) {
        long turns = measured.turns();
        Sample a = measured.a(), b = measured.b();
        double seconds = (b.nanos() - a.nanos()) / 1e9;
        double perTurn = CLOCK_TICK_NANOS / 1e3 / Math.max(1, turns); // µs per tick per turn
        long node = b.node() - a.node(), postgres = b.postgresTotal() - a.postgresTotal(), self = b.self() - a.self();
        System.out.printf(Locale.ROOT, "round %d: %.0f req/s; CPU µs/turn: node %.0f, postgres %.0f, bench+upstream %.0f, "
                        + "total %.0f (%.0f%% of 2 cores)%n", round, turns / seconds, node * perTurn, postgres * perTurn,
                self * perTurn, (node + postgres + self) * perTurn,
                (node + postgres + self) * CLOCK_TICK_NANOS / 1e9 / seconds / 2 * 100);
        if (b.postgres().isEmpty()) return;
        var kinds = new StringBuilder("  postgres by kind, µs/turn:");
        b.postgres().forEach((kind, ticks) -> {
            long used = ticks - a.postgres().getOrDefault(kind, 0L);
            if (used > 0) kinds.append(String.format(Locale.ROOT, " [%s] %.0f", kind, used * perTurn));
        });
        System.out.println(kinds);
    }

    /**
     * Closed loop at 64 clients, a session each (its own first message): the turns completed in {@code seconds} after
     * 2 s of ramp-up, between samples of the processes' CPU.
     */
    static Round load(URI base, int seconds, long nodePid) throws Exception {
        int clients = 64;
        var stop = new AtomicBoolean();
        var counting = new AtomicBoolean();
        var done = new AtomicLong();
        var finished = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            var body = "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"hi from client " + c + "\"}]}";
            Thread.ofVirtual().start(() -> {
                try {
                    while (!stop.get()) {
                        var r = HTTP.send(HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                                .header("Authorization", "Bearer " + BenchServer.KEY).header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 200 && counting.get()) done.incrementAndGet();
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                } finally {
                    finished.countDown();
                }
            });
        }
        Thread.sleep(2000);
        var before = Sample.take(nodePid);
        counting.set(true);
        Thread.sleep(seconds * 1000L);
        counting.set(false);
        var after = Sample.take(nodePid);
        stop.set(true);
        finished.await();
        return new Round(done.get(), before, after);
    }

    static void attach(long pid, String what) throws Exception {
        new ProcessBuilder(System.getProperty("java.home") + "/bin/java",
                Path.of(System.getProperty("bench.src", "bench/src"), "AttachProfiler.java").toString(), "" + pid,
                System.getenv("ASYNC_PROFILER_LIB"), what).inheritIO().start().waitFor();
    }

    /** utime + stime of a process, in clock ticks; 0 when it is gone. */
    static long ticks(long pid) {
        try {
            var stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (Exception e) {
            return 0;
        }
    }

    /** CPU ticks of every PostgreSQL process, summed by kind: "walwriter", "<user> <db> <host>(backend)", .... */
    static Map<String, Long> postgresByKind() throws Exception {
        var kinds = new TreeMap<String, Long>();
        try (var processes = Files.list(Path.of("/proc"))) {
            for (var p : processes.toList()) {
                var pid = p.getFileName().toString();
                if (!pid.chars().allMatch(Character::isDigit)) continue;
                try {
                    if (!Files.readString(p.resolve("comm")).trim().startsWith("postgres")) continue;
                    var command = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ').trim();
                    String kind = command.startsWith("postgres: ") ? command.substring(10) : "postmaster";
                    if (kind.contains("(")) kind = kind.replaceAll("\\(\\d+\\).*", "(backend)");
                    kinds.merge(kind, ticks(Long.parseLong(pid)), Long::sum);
                } catch (Exception gone) {
                    // the process ended between the listing and the read
                }
            }
        }
        return kinds;
    }
}
