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
 * JVM start and plugin boot are excluded. Run through {@code bench/batch-throughput}.
 */
public final class BatchBench {
    static final Pattern DURATION = Pattern.compile("Duration: ([0-9.]+)s");

    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        List<Integer> workers = List.of(1, 8, 64, 256);
        List<Integer> latencies = List.of(0, 200);
        int fixedPrompts = 0; // 0: a count per cell (below)
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--workers" -> workers = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--latency-ms" -> latencies = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--prompts" -> fixedPrompts = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --workers 1,8,64,256 --latency-ms 0,200 --prompts N --dist DIR");
            }
        }
        System.out.println("| upstream latency | workers | prompts | seconds | prompts/s | ideal | of ideal | RSS max MiB |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (int latency : latencies)
            for (int w : workers) {
                int prompts = fixedPrompts > 0 ? fixedPrompts : latency == 0 ? Math.max(200, w * 2) : Math.max(20, w * 4);
                var result = run(dist, w, latency, prompts);
                double rate = prompts / result.seconds();
                double ideal = latency == 0 ? Double.NaN : w * 1000.0 / latency;
                System.out.printf(Locale.ROOT, "| %d ms | %d | %d | %.2f | %.1f | %s | %s | %d |%n", latency, w, prompts,
                        result.seconds(), rate, latency == 0 ? "-" : String.format(Locale.ROOT, "%.0f", ideal),
                        latency == 0 ? "-" : String.format(Locale.ROOT, "%.2f", rate / ideal), result.rssMaxKib() / 1024);
            }
    }

    /** The run's own duration and the most resident memory the batch process had (sampled every 100 ms). */
    record Result(double seconds, long rssMaxKib) {}

    static Result run(Path dist, int workers, int latency, int prompts) throws Exception {
        var tmp = Files.createTempDirectory("batch-bench");
        try (var upstream = ScriptedUpstream.start()) {
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
            var sampler = Thread.ofVirtual().start(() -> {
                while (process.isAlive()) {
                    process.descendants().forEach(p -> rssMax.accumulateAndGet(rssKib(p.pid()), Math::max));
                    rssMax.accumulateAndGet(rssKib(process.pid()), Math::max);
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
            return new Result(Double.parseDouble(m.group(1)), rssMax.get());
        } finally {
            try (var files = Files.walk(tmp)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
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
