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
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--workers" -> workers = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--latency-ms" -> latencies = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --workers 1,8,64,256 --latency-ms 0,200 --dist DIR");
            }
        }
        System.out.println("| upstream latency | workers | prompts | seconds | prompts/s |");
        System.out.println("|---|---|---|---|---|");
        for (int latency : latencies)
            for (int w : workers) {
                int prompts = latency == 0 ? Math.max(200, w * 2) : Math.max(20, w * 4);
                double seconds = run(dist, w, latency, prompts);
                System.out.printf(Locale.ROOT, "| %d ms | %d | %d | %.2f | %.1f |%n", latency, w, prompts, seconds,
                        prompts / seconds);
            }
    }

    static double run(Path dist, int workers, int latency, int prompts) throws Exception {
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
            var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = process.waitFor();
            var m = DURATION.matcher(output);
            if (status != 0 || !m.find()) throw new IllegalStateException("batch exited " + status + ":\n" + output);
            return Double.parseDouble(m.group(1));
        } finally {
            try (var files = Files.walk(tmp)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
