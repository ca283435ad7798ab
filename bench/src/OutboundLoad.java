import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host's outbound HTTP client alone under load: CLIENTS virtual threads each POST an 8 KB chat
 * request through one {@link OutboundClient} to an in-process zero-delay {@link ScriptedUpstream} and
 * read the answer, for SECONDS, twice (phase 0 warms the JIT, phase 1 is the figure). Prints req/s and
 * the process CPU and context switches per call (client and upstream together: they share the JVM). Run by
 * {@code bench/outbound-client}; args: CLIENTS SECONDS.
 */
public class OutboundLoad {
    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        var body = ("{\"model\":\"scripted-model\",\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":\""
                + "x".repeat(8000) + "\"}]}").getBytes(StandardCharsets.UTF_8);
        try (var upstream = ScriptedUpstream.start(); var client = new OutboundClient(ProxyRules.direct(), "load")) {
            upstream.recordRequests(false);
            upstream.setDefault(Turn.text("ok").usage(12, 1));
            var uri = URI.create(upstream.baseUrl() + "/chat/completions");
            var count = new AtomicLong();
            var errors = new AtomicLong();
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            for (int phase = 0; phase < 2; phase++) {
                count.set(0);
                long cpu0 = os.getProcessCpuTime();
                long switches0 = contextSwitches();
                long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
                var threads = new Thread[clients];
                for (int i = 0; i < clients; i++) {
                    threads[i] = Thread.ofVirtual().start(() -> {
                        while (System.nanoTime() < end) {
                            var req = OutboundHttp.Request.post(uri, "application/json", body)
                                    .withHeader("Accept", "application/json")
                                    .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(300), Duration.ofSeconds(600));
                            try (var ex = client.prepare(req); var r = ex.send()) {
                                r.body().readAllBytes();
                                count.incrementAndGet();
                            } catch (Exception e) {
                                if (errors.incrementAndGet() < 3) e.printStackTrace();
                            }
                        }
                    });
                }
                for (var t : threads) t.join();
                long cpu = os.getProcessCpuTime() - cpu0;
                long switches = contextSwitches() - switches0;
                System.out.printf("phase %d%s: %d req, %.0f req/s, %.1f us CPU/req, %.2f context switches/req (client + upstream),"
                                + " errors %d, pool %s%n",
                        phase, phase == 0 ? " (warm-up)" : "", count.get(), count.get() / (double) seconds,
                        cpu / 1000.0 / Math.max(1, count.get()), switches / (double) Math.max(1, count.get()), errors.get(),
                        client.poolStats());
            }
        }
    }

    /** Voluntary and involuntary context switches of every thread of this process so far (Linux; 0 elsewhere). */
    static long contextSwitches() {
        long sum = 0;
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var task : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    for (var line : java.nio.file.Files.readAllLines(task.resolve("status")))
                        if (line.contains("ctxt_switches:")) sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                } catch (java.io.IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return 0;
        }
        return sum;
    }
}
