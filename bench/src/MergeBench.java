import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The batch merge alone, two builds alternating: one run of PROMPTS prompts (batch size 1, 256 workers,
 * an upstream that answers at once) made with build B, then ROUNDS times, for A and B in turn, a fresh
 * copy of its folder without {@code trajectories.jsonl} and {@code caduceus batch --resume} on it:
 * nothing is left to run, so the wall time is boot, the merge and the statistics. Run through
 * {@code bench/batch-merge}.
 */
public final class MergeBench {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) throw new IllegalArgumentException("usage: bench/batch-merge DIST_A DIST_B [PROMPTS 20000] [ROUNDS 3]");
        var a = Path.of(args[0]);
        var b = Path.of(args[1]);
        int prompts = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        var work = Files.createTempDirectory("batch-merge");
        try (var upstream = ScriptedUpstream.start()) {
            upstream.setDefault(Turn.reasoning("Thinking.").withText("Done."));
            var data = new StringBuilder();
            for (int i = 0; i < prompts; i++) data.append("{\"prompt\": \"Prompt ").append(i).append("\"}\n");
            var dataset = Files.writeString(work.resolve("data.jsonl"), data);
            var made = work.resolve("made");
            System.out.println("made the run with B: " + batch(b, dataset, made, work, upstream, false) + " ms");
            System.out.println("| round | A merge-only ms | B merge-only ms |");
            System.out.println("|---|---|---|");
            for (int round = 1; round <= rounds; round++) {
                var cells = new String[2];
                for (int side = 0; side < 2; side++) {
                    var copy = work.resolve("copy");
                    delete(copy);
                    run("cp", "-a", made.toString(), copy.toString());
                    Files.deleteIfExists(copy.resolve("trajectories.jsonl"));
                    try {
                        cells[side] = Long.toString(batch(side == 0 ? a : b, dataset, copy, work, upstream, true));
                    } catch (IllegalStateException failed) { // a build that cannot merge this run: say how it ended
                        var lines = failed.getMessage().lines().filter(l -> l.contains("Error") || l.contains("exited")).toList();
                        cells[side] = "failed: " + String.join("; ", lines.subList(0, Math.min(2, lines.size())));
                    }
                }
                System.out.printf("| %d | %s | %s |%n", round, cells[0], cells[1]);
            }
        } finally {
            delete(work);
        }
    }

    /** {@code caduceus batch} over {@code dataset} into {@code out}; its wall time in ms (it must exit 0). */
    static long batch(Path dist, Path dataset, Path out, Path work, ScriptedUpstream upstream, boolean resume)
            throws Exception {
        var command = new ArrayList<>(List.of(dist.resolve("bin/caduceus").toString(), "batch",
                "--dataset_file=" + dataset, "--batch_size=1", "--run_name=bench", "--output_dir=" + out,
                "--num_workers=256", "--distribution=terminal_only", "--seed=1", "--no_progress"));
        if (resume) command.add("--resume");
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("CADUCEUS_HOME", work.resolve("home").toString());
        builder.environment().put("OPENAI_BASE_URL", upstream.baseUrl());
        builder.environment().put("CADUCEUS_MODEL", ScriptedUpstream.MODEL);
        builder.environment().put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        builder.environment().put("CADUCEUS_LOG_LEVEL", "warn");
        long started = System.nanoTime();
        var process = builder.start();
        var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) throw new IllegalStateException("batch exited " + process.exitValue() + ":\n" + output);
        return (System.nanoTime() - started) / 1_000_000;
    }

    static void run(String... command) throws Exception {
        if (new ProcessBuilder(command).inheritIO().start().waitFor() != 0) throw new IllegalStateException(String.join(" ", command));
    }

    static void delete(Path dir) throws Exception {
        if (!Files.exists(dir)) return;
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
