import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The store's cost and the cluster's: the same loads against one node on SQLite, one node on
 * PostgreSQL and two nodes on one PostgreSQL (the load split between them), all on this machine, and the
 * delivery latency of a run's events to a subscriber on the node executing it vs on another node.
 *
 * <p>Loads (closed loop, JDK HttpClient on virtual threads, after a warm-up of the same length):
 * non-streaming chat at 64 clients (S1's shape: one agent turn and one session write per request) and
 * durable runs at 16 clients (POST /v1/runs, then its event stream read to the end). The PostgreSQL
 * server is a throwaway cluster from Debian's binaries (testkit-postgres) with fsync off, as the tests
 * use: read the ratios, not the absolute numbers.
 *
 * <p>On PostgreSQL it then starts nodes of the same configuration anew, their database URL pointing at a TCP relay in
 * this JVM ({@link PgRelay}; the loads above do not go through it) and runs each load once more (a chat turn
 * with a session per client, and a run) to count what a request costs the database: <b>transactions</b>
 * (pg_stat_database's commits and rollbacks over the whole load, warm-up included, read after 11 s idle,
 * per successful request) and <b>round trips</b> (the relay's count over the measured window, after the
 * warm-up, per successful request in that window). A round trip is a client send on a connection after the
 * server has sent bytes since the client's previous send (a connection's first send counts too, so
 * connections opened in the window are counted with their set-up); pgjdbc's pipelined
 * Parse/Bind/Execute/Sync is one. Both include the nodes' background work over that time.
 *
 * <p>Usage: {@code bench/cluster [--seconds 10] [--repeats 3] [--only postgresql-1] [--runs-only] [--tool]
 * [--background]} (run from the repository after
 * {@code mvn -B -q package -DskipTests}).
 */
public class ClusterBench {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final Pattern TIMESTAMP = Pattern.compile("\"timestamp\":([0-9.]+)");
    static final Pattern RUN_ID = Pattern.compile("\"run_id\":\"(run_[0-9a-f]+)\"");
    static final String CHAT = "{\"model\":\"hermes-agent\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        int seconds = 10;
        int repeats = 3;
        boolean waits = false;
        String only = null;
        boolean runsOnly = false;
        boolean tool = false;
        boolean background = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                case "--waits" -> waits = true;
                case "--only" -> only = args[++i];
                case "--runs-only" -> runsOnly = true;   // the runs row alone, no chat, no latency part
                case "--tool" -> tool = true;            // each turn makes one read_file call before it answers
                case "--background" -> background = true; // the runs row as background responses, streamed to the end
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        var duration = Duration.ofSeconds(seconds);
        var warmup = Duration.ofSeconds(Math.max(1, seconds / 2));
        try (var upstream = ScriptedUpstream.start()) {
            upstream.recordRequests(false).setDefault(Turn.text("ok"));
            if (tool) upstream.setDefault(body -> body.toString().contains("\"role\":\"tool\"") ? Turn.text("ok")
                    : Turn.toolCalls(Turn.ToolCall.of("call_1", "read_file", "{\"path\":\"notes.txt\"}")));
            var pg = TestPostgres.shared();
            Map<String, double[]> results = new java.util.LinkedHashMap<>();
            for (String config : List.of("sqlite-1", "postgresql-1", "postgresql-2")) {
                if (only != null && !config.equals("sqlite-1") && !config.equals(only)) continue;
                var db = config.startsWith("postgresql") ? pg.newDatabase() : null;
                Call own = (base, c) -> chat(base, chatOf(c));
                Call each = background ? (base, c) -> background(base) : (base, c) -> run(base);
                double chatRate, ownRate, runRate, conflicts = 0;
                var nodes = start(config, dist, upstream, db == null ? null : db.url());
                var sampler = waits && db != null ? WaitSampler.start(db) : null;
                try {
                    chatRate = runsOnly ? 0 : median(repeats, () -> load(nodes, 64, duration, warmup, (base, c) -> chat(base, CHAT)));
                    ownRate = runsOnly ? 0 : median(repeats, () -> load(nodes, 64, duration, warmup, own));
                    runRate = median(repeats, () -> load(nodes, 16, duration, warmup, each));
                    for (var n : nodes) conflicts += conflicts(n.uri());
                } finally {
                    if (sampler != null) sampler.print(config);
                    stop(nodes);
                }
                // PostgreSQL's cost per request, each load once more on nodes reaching it through the counting relay
                var chatCost = Cost.NONE;
                var runCost = Cost.NONE;
                if (db != null) {
                    try (var relay = PgRelay.start(db.port())) {
                        var counted = start(config, dist, upstream, relay.front(db).url());
                        try {
                            if (!runsOnly) chatCost = cost(db, relay, counted, 64, duration, warmup, own);
                            runCost = cost(db, relay, counted, 16, duration, warmup, each);
                        } finally {
                            stop(counted);
                        }
                    }
                }
                results.put(config, new double[] {chatRate, ownRate, runRate, conflicts,
                        chatCost.transactions(), runCost.transactions(), chatCost.roundTrips(), runCost.roundTrips()});
            }
            double[] base = results.get("sqlite-1");
            System.out.println("| store | chat req/s, one session (64 clients) | ratio | chat req/s, a session each | ratio "
                    + "| runs/s (16 clients) | ratio | writes run again | transactions per chat turn | per run "
                    + "| round trips per chat turn | per run |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
            results.forEach((k, v) -> System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f× | %.0f | %.2f× | %.1f | %.2f× | %.0f | %s | %s | %s | %s |%n",
                    k, v[0], v[0] / base[0], v[1], v[1] / base[1], v[2], v[2] / base[2], v[3],
                    perRequest(v[4]), perRequest(v[5]), perRequest(v[6]), perRequest(v[7])));
            if (!runsOnly) latency(dist, upstream, pg);
        }
    }

    interface Call {
        boolean call(URI base, int client) throws Exception;
    }

    interface Measure {
        double run() throws Exception;
    }

    static double median(int repeats, Measure m) throws Exception {
        var values = new ArrayList<Double>();
        for (int i = 0; i < repeats; i++) values.add(m.run());
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    /** The nodes of {@code config}; {@code databaseUrl} null for SQLite. */
    static List<BenchServer> start(String config, Path dist, ScriptedUpstream upstream, String databaseUrl) throws Exception {
        int count = config.endsWith("-2") ? 2 : 1;
        var env = new HashMap<String, String>();
        env.put("CADUCEUS__SERVER__MAX_CONCURRENT_RUNS", "0");
        if (databaseUrl != null) env.put("CADUCEUS_DATABASE_URL", databaseUrl);
        var nodes = new ArrayList<BenchServer>();
        for (int i = 0; i < count; i++)
            nodes.add(BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env));
        return nodes;
    }

    static void stop(List<BenchServer> nodes) throws InterruptedException {
        nodes.forEach(n -> n.process().destroy());
        for (var n : nodes) n.process().waitFor();
    }

    static String perRequest(double value) {
        return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** What a request costs PostgreSQL: transactions and round trips per successful request (NaN: not measured). */
    record Cost(double transactions, double roundTrips) {
        static final Cost NONE = new Cost(Double.NaN, Double.NaN);
    }

    /**
     * One more load on nodes whose database is reached through {@code relay}, the background work of the nodes
     * over that time included. Transactions: the database's committed and rolled-back ones (pg_stat_database)
     * over the whole load, warm-up included, per successful request; the counters are read after 11 s without
     * load, when every backend has flushed its statistics (PostgreSQL holds an idle backend's for up to 10 s),
     * and before, after the previous load's same wait. Round trips: the relay's count over the measured window
     * per successful request in that window.
     */
    static Cost cost(TestPostgres.Db db, PgRelay relay, List<BenchServer> nodes, int clients, Duration duration,
                     Duration warmup, Call call) throws Exception {
        Thread.sleep(11_000);
        long before = transactions(db);
        var calls = new AtomicLong();
        var window = load(nodes, clients, duration, warmup, (base, c) -> {
            boolean ok = call.call(base, c);
            if (ok) calls.incrementAndGet();
            return ok;
        }, relay.roundTrips()::get);
        Thread.sleep(11_000);
        return new Cost((transactions(db) - before) / (double) Math.max(1, calls.get()),
                window.metered() / (double) Math.max(1, window.requests()));
    }

    /**
     * A loopback TCP listener in front of PostgreSQL's port that passes each connection's bytes on both ways
     * (two virtual threads per connection) and counts round trips over all connections: on a connection, a
     * client send counts when the server has sent bytes since the client's previous send (the first send
     * counts too). Messages the client writes together, as pgjdbc's Parse/Bind/Execute/Sync, are one.
     */
    record PgRelay(ServerSocket listener, int target, AtomicLong roundTrips) implements AutoCloseable {
        static PgRelay start(int target) throws IOException {
            var relay = new PgRelay(new ServerSocket(0, 200, InetAddress.getLoopbackAddress()), target, new AtomicLong());
            Thread.ofVirtual().start(relay::accept);
            return relay;
        }

        /** The same database, reached through this relay (its URL built as {@link TestPostgres.Db#url()} does). */
        TestPostgres.Db front(TestPostgres.Db db) {
            int port = listener.getLocalPort();
            return new TestPostgres.Db(db.name(), "jdbc:postgresql://127.0.0.1:" + port + "/" + db.name(),
                    db.user(), db.password(), port);
        }

        void accept() {
            while (!listener.isClosed()) {
                try {
                    var client = listener.accept();
                    Thread.ofVirtual().start(() -> relay(client));
                } catch (IOException e) {
                    // the listener was closed
                }
            }
        }

        void relay(Socket client) {
            Socket server;
            try {
                server = new Socket(InetAddress.getLoopbackAddress(), target);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                return;
            }
            // the server has sent bytes since the client's previous send; true: the first send counts
            var answered = new AtomicBoolean(true);
            Thread.ofVirtual().start(() -> copy(server, client, () -> answered.set(true)));
            copy(client, server, () -> {
                if (answered.getAndSet(false)) roundTrips.incrementAndGet();
            });
        }

        /** Passes bytes on until either side ends, calling {@code onBytes} before each write; then closes both. */
        static void copy(Socket from, Socket to, Runnable onBytes) {
            try (from; to) {
                var in = from.getInputStream();
                var out = to.getOutputStream();
                var buffer = new byte[16384];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    onBytes.run();
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // the other direction closed both, or a side reset: the connection is over
            }
        }

        static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    static long transactions(TestPostgres.Db db) throws Exception {
        try (var c = db.connect(); var st = c.prepareStatement(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()");
             var rs = st.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Requests per second over {@code duration} after {@code warmup}; clients alternate the nodes. */
    static double load(List<BenchServer> nodes, int clients, Duration duration, Duration warmup, Call call) throws Exception {
        var window = load(nodes, clients, duration, warmup, call, () -> 0);
        return window.requests() / window.seconds();
    }

    /** A load's measured window: its successful requests, its length, and how much a meter rose over it. */
    record Window(long requests, double seconds, long metered) {}

    /** {@code clients} closed loops for {@code warmup}, then the window of {@code duration}, read by {@code meter} at each end. */
    static Window load(List<BenchServer> nodes, int clients, Duration duration, Duration warmup, Call call,
                       LongSupplier meter) throws Exception {
        var stop = new AtomicBoolean();
        var counting = new AtomicBoolean();
        var done = new AtomicLong();
        var errors = new AtomicLong();
        var finished = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            var base = nodes.get(c % nodes.size()).uri();
            int client = c;
            Thread.ofVirtual().start(() -> {
                try {
                    while (!stop.get()) {
                        boolean ok = call.call(base, client);
                        if (counting.get()) (ok ? done : errors).incrementAndGet();
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                } finally {
                    finished.countDown();
                }
            });
        }
        Thread.sleep(warmup.toMillis());
        counting.set(true);
        long metered = meter.getAsLong();
        long started = System.nanoTime();
        Thread.sleep(duration.toMillis());
        counting.set(false);
        metered = meter.getAsLong() - metered;
        double elapsed = (System.nanoTime() - started) / 1e9;
        stop.set(true);
        finished.await();
        if (errors.get() > 0) System.err.println("  " + errors.get() + " failed requests");
        return new Window(done.get(), elapsed, metered);
    }

    static final Pattern CONFLICTS = Pattern.compile("(?m)^caduceus_db_write_conflicts_total ([0-9.eE+]+)$");

    /** The node's {@code db_write_conflicts} counter (PostgreSQL writes run again); 0 on SQLite. */
    static double conflicts(URI base) throws Exception {
        var r = HTTP.send(request(base.resolve("/metrics")).GET().build(), HttpResponse.BodyHandlers.ofString());
        var m = CONFLICTS.matcher(r.body());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + BenchServer.KEY).header("Content-Type", "application/json");
    }

    /** A first message of client {@code c}'s own: its derived session id is its own too. */
    static String chatOf(int c) {
        return CHAT.replace("\"hi\"", "\"hi from client " + c + "\"");
    }

    static boolean chat(URI base, String body) throws Exception {
        var r = HTTP.send(request(base.resolve("/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.discarding());
        return r.statusCode() == 200;
    }

    static boolean run(URI base) throws Exception {
        var created = HTTP.send(request(base.resolve("/v1/runs")).POST(HttpRequest.BodyPublishers.ofString("{\"input\":\"hi\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 202) return false;
        var m = RUN_ID.matcher(created.body());
        if (!m.find()) return false;
        var events = HTTP.send(request(base.resolve("/v1/runs/" + m.group(1) + "/events")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return events.statusCode() == 200 && events.body().contains("run.completed");
    }

    /** A background response (issue 43) created with {@code stream: true}, its stream read to the end. */
    static boolean background(URI base) throws Exception {
        var r = HTTP.send(request(base.resolve("/v1/responses")).POST(HttpRequest.BodyPublishers.ofString(
                "{\"input\":\"hi\",\"background\":true,\"stream\":true}")).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 && r.body().contains("response.completed");
    }

    /**
     * One run on node A streaming 200 chunks 20 ms apart, read at once by a subscriber on A and one on B:
     * each frame's receipt time minus its journal timestamp, p50/p99 per side.
     */
    static void latency(Path dist, ScriptedUpstream upstream, TestPostgres pg) throws Exception {
        var env = Map.of("CADUCEUS_DATABASE_URL", pg.newDatabase().url());
        var a = BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env);
        var b = BenchServer.launch(dist, Files.createTempDirectory("cluster-bench"), upstream.baseUrl(), env);
        try {
            var same = Collections.synchronizedList(new ArrayList<Double>());
            var cross = Collections.synchronizedList(new ArrayList<Double>());
            for (int round = 0; round < 3; round++) {
                var chunks = new String[200];
                for (int i = 0; i < chunks.length; i++) chunks[i] = "t" + i + " ";
                upstream.enqueue(Turn.textChunks(chunks).chunkDelayMillis(20));
                var created = HTTP.send(request(a.uri().resolve("/v1/runs")).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"input\":\"stream\"}")).build(), HttpResponse.BodyHandlers.ofString());
                var m = RUN_ID.matcher(created.body());
                if (!m.find()) throw new IllegalStateException(created.body());
                String runId = m.group(1);
                var readers = new ArrayList<Thread>();
                for (var side : List.of(Map.entry(a, same), Map.entry(b, cross))) {
                    readers.add(Thread.ofVirtual().start(() -> {
                        try {
                            var lines = HTTP.send(request(side.getKey().uri().resolve("/v1/runs/" + runId + "/events")).GET().build(),
                                    HttpResponse.BodyHandlers.ofLines());
                            lines.body().forEach(line -> {
                                var t = TIMESTAMP.matcher(line);
                                if (line.startsWith("data:") && t.find())
                                    side.getValue().add(System.currentTimeMillis() - Double.parseDouble(t.group(1)) * 1000);
                            });
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                for (var t : readers) t.join();
            }
            System.out.printf(Locale.ROOT, "%nEvent delivery (receipt minus journal timestamp, %d and %d frames):%n", same.size(), cross.size());
            System.out.println("| subscriber | p50 ms | p99 ms |");
            System.out.println("|---|---|---|");
            System.out.printf(Locale.ROOT, "| same node (A) | %.1f | %.1f |%n", pct(same, 50), pct(same, 99));
            System.out.printf(Locale.ROOT, "| other node (B) | %.1f | %.1f |%n", pct(cross, 50), pct(cross, 99));
        } finally {
            a.process().destroy();
            b.process().destroy();
            a.process().waitFor();
            b.process().waitFor();
        }
    }

    /** {@code --waits}: what the database's sessions wait on, sampled every 10 ms (pg_stat_activity). */
    record WaitSampler(Map<String, AtomicLong> counts, AtomicBoolean stop) {
        static WaitSampler start(TestPostgres.Db db) {
            var sampler = new WaitSampler(new ConcurrentHashMap<>(), new AtomicBoolean());
            Thread.ofPlatform().daemon().start(() -> {
                try (var c = db.connect(); var st = c.prepareStatement("SELECT state, wait_event_type, wait_event, "
                        + "left(query, 60) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
                    while (!sampler.stop().get()) {
                        try (var rs = st.executeQuery()) {
                            while (rs.next()) {
                                if ("idle".equals(rs.getString(1))) continue;
                                String key = rs.getString(1) + " " + rs.getString(2) + "/" + rs.getString(3) + " " + rs.getString(4);
                                sampler.counts().computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
                            }
                        }
                        Thread.sleep(10);
                    }
                } catch (Exception e) {
                    System.err.println("wait sampler: " + e);
                }
            });
            return sampler;
        }

        void print(String config) {
            stop.set(true);
            System.out.println("waits on " + config + " (samples of non-idle sessions):");
            counts.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().get(), a.getValue().get())).limit(15)
                    .forEach(e -> System.out.printf(Locale.ROOT, "  %6d  %s%n", e.getValue().get(), e.getKey().replace('\n', ' ')));
        }
    }

    static double pct(List<Double> values, int p) {
        var sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        if (sorted.isEmpty()) return Double.NaN;
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }
}
