import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code caduceus batch} throughput: prompts per second at 1, 8, 64 and 256 workers against a
 * scripted upstream that answers at once and one that waits 200 ms per call. Each cell is a fresh
 * {@code bin/caduceus batch} process (batch size 1, one model call per prompt, reasoning included so
 * nothing is discarded); the figure is prompts / the run's own duration (from its summary line), so
 * JVM start and plugin boot are excluded. A cell with latency gets as many prompts as its workers would finish
 * in {@code --seconds} (10) at the ideal rate, so the run's warm-up is not most of it. Also printed: the CPU a
 * prompt cost the batch process and this one (the scripted upstream, which shares the cores), in ms, and the rate
 * of the run's second half (the JIT's warm-up behind it).
 * The upstream records nothing (so its heap stays flat). Run through {@code bench/batch-throughput}.
 */
public final class BatchBench {
    static final Pattern DURATION = Pattern.compile("Duration: ([0-9.]+)s");

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        List<Integer> workers = List.of(1, 8, 64, 256);
        List<Integer> latencies = List.of(0, 200);
        int fixedPrompts = 0; // 0: a count per cell (below)
        int seconds = 10;
        boolean keep = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--workers" -> workers = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--latency-ms" -> latencies = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--prompts" -> fixedPrompts = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--keep" -> keep = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --workers 1,8,64,256 --latency-ms 0,200 --prompts N --seconds S --keep --dist DIR");
            }
        }
        System.out.println("| upstream latency | workers | prompts | seconds | prompts/s | ideal | of ideal | RSS max MiB "
                + "| batch CPU ms/prompt | upstream CPU ms/prompt | prompts/s, second half |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        var files = Files.createTempDirectory("batch-bench");
        try {
            cells(dist, workers, latencies, fixedPrompts, seconds, files);
        } finally {
            if (keep) System.out.println("the cells' files are in " + files);
            else deleteTree(files);
        }
    }

    static void cells(Path dist, List<Integer> workers, List<Integer> latencies, int fixedPrompts, int seconds, Path files)
            throws Exception {
        var self = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        for (int latency : latencies)
            for (int w : workers) {
                int prompts = fixedPrompts > 0 ? fixedPrompts : latency == 0 ? Math.max(200, w * 2)
                        : Math.max(20, (int) ((long) w * seconds * 1000 / latency));
                long upstreamCpu = self.getProcessCpuTime();
                var result = run(dist, w, latency, prompts, files);
                upstreamCpu = self.getProcessCpuTime() - upstreamCpu;
                double rate = prompts / result.seconds();
                double ideal = latency == 0 ? Double.NaN : w * 1000.0 / latency;
                System.out.printf(Locale.ROOT, "| %d ms | %d | %d | %.2f | %.1f | %s | %s | %d | %.2f | %.2f | %.1f |%n", latency, w,
                        prompts, result.seconds(), rate, latency == 0 ? "-" : String.format(Locale.ROOT, "%.0f", ideal),
                        latency == 0 ? "-" : String.format(Locale.ROOT, "%.2f", rate / ideal), result.rssMaxKib() / 1024,
                        result.cpuMillis() / prompts, upstreamCpu / 1e6 / prompts, result.secondHalfRate());
            }
    }

    /**
     * The run's own duration, the most resident memory the batch process had (sampled every 100 ms) and its CPU time
     * (boot included; as last sampled, at most 100 ms before it exited).
     */
    record Result(double seconds, long rssMaxKib, double cpuMillis, double secondHalfRate) {}

    /**
     * Prompts completed per second in the second half of the run (from its {@code batch.log}: first start to last
     * completion), when the JIT has compiled the hot paths: the steady rate, where the whole run's includes warm-up.
     */
    static double secondHalfRate(Path log) throws java.io.IOException {
        var times = new ArrayList<java.time.LocalDateTime>();
        java.time.LocalDateTime first = null;
        try (var lines = Files.lines(log)) {
            for (var line : (Iterable<String>) lines::iterator) {
                int space = line.indexOf(' ');
                if (space < 0) continue;
                var at = java.time.LocalDateTime.parse(line.substring(0, space));
                if (first == null && line.endsWith(" started")) first = at;
                if (line.contains(" completed in ")) times.add(at);
            }
        }
        if (first == null || times.size() < 2) return Double.NaN;
        var last = times.getLast();
        long halfNanos = java.time.Duration.between(first, last).toNanos() / 2;
        var mid = first.plusNanos(halfNanos);
        long after = times.stream().filter(t -> t.isAfter(mid)).count();
        return after / (halfNanos / 1e9);
    }

    /**
     * One cell, its files (dataset, output, home with the workspaces) in a new folder under {@code parent}, left there:
     * the caller deletes {@code parent} once every cell has run. On ext4 without a journal (these machines), an inode
     * freed within the last minute (six while its table block is dirty) is skipped when a new one is allocated, at the
     * cost of reading its table block: a cell that deleted the previous cell's ~2 files per prompt just before it
     * started made a file per prompt up to 3× dearer (a quarter of the batch process's CPU in a profile).
     */
    static Result run(Path dist, int workers, int latency, int prompts, Path parent) throws Exception {
        var tmp = Files.createTempDirectory(parent, "cell");
        try (var upstream = ScriptedUpstream.start().recordRequests(false)) {
            upstream.setDefault(Turn.reasoning("Thinking.").withText("Done.").delayMillis(latency));
            var data = new StringBuilder();
            for (int i = 0; i < prompts; i++) data.append("{\"prompt\": \"Prompt ").append(i).append("\"}\n");
            var dataset = Files.writeString(tmp.resolve("data.jsonl"), data);
            var command = new ArrayList<>(List.of(dist.resolve("bin/caduceus").toString(), "batch",
                    "--dataset_file=" + dataset, "--batch_size=1", "--run_name=bench",
                    "--output_dir=" + tmp.resolve("out"), "--num_workers=" + workers, "--distribution=terminal_only",
                    "--seed=1", "--no_progress"));
            var builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().put("CADUCEUS_HOME", tmp.resolve("home").toString());
            builder.environment().put("OPENAI_BASE_URL", upstream.baseUrl());
            builder.environment().put("CADUCEUS_MODEL", ScriptedUpstream.MODEL);
            builder.environment().put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
            builder.environment().put("CADUCEUS_LOG_LEVEL", "warn");
            var process = builder.start();
            var rssMax = new java.util.concurrent.atomic.AtomicLong();
            var cpuTicks = new java.util.concurrent.atomic.AtomicLong();
            var sampler = Thread.ofVirtual().start(() -> {
                while (process.isAlive()) {
                    process.descendants().forEach(p -> rssMax.accumulateAndGet(rssKib(p.pid()), Math::max));
                    rssMax.accumulateAndGet(rssKib(process.pid()), Math::max);
                    long ticks = process.descendants().mapToLong(p -> cpuTicks(p.pid())).sum() + cpuTicks(process.pid());
                    cpuTicks.accumulateAndGet(ticks, Math::max);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = process.waitFor();
            sampler.interrupt();
            var m = DURATION.matcher(output);
            if (status != 0 || !m.find()) throw new IllegalStateException("batch exited " + status + ":\n"
                    + (output.length() > 4000 ? "…" + output.substring(output.length() - 4000) : output));
            return new Result(Double.parseDouble(m.group(1)), rssMax.get(), cpuTicks.get() * 10.0, // 100 ticks a second
                    secondHalfRate(tmp.resolve("out/batch.log")));
        }
    }

    /** Deletes a folder and everything in it. */
    static void deleteTree(Path dir) throws java.io.IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** The user and system CPU time of a process in clock ticks, 0 once it is gone. */
    static long cpuTicks(long pid) {
        try {
            var stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime: fields 14 and 15
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** VmRSS of a process in KiB, 0 once it is gone (the launcher script's JVM is its child). */
    static long rssKib(long pid) {
        try {
            for (var line : Files.readAllLines(Path.of("/proc/" + pid + "/status")))
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        } catch (java.io.IOException | RuntimeException e) {
            // gone
        }
        return 0;
    }
}
