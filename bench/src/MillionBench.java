import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * {@code caduceus batch} with a dataset of a million prompts (issue 41, item 1), in the launcher's default heap.
 * Two cells, each a fresh {@code bin/caduceus batch} process:
 * <ul>
 *   <li><b>resume, all done</b>: the dataset and a {@code checkpoint.json} that says every prompt is completed, in
 *       batches of {@code --batch-size} (10: a million prompts are 100,000 batch entries); {@code --resume} reads
 *       both, finds nothing to run, rewrites the checkpoint and writes the statistics. No batch files: the merge
 *       has nothing to read, so the cell measures the dataset, the checkpoint and the resume.</li>
 *   <li><b>fresh run</b>: the same dataset from the start, 256 workers against an upstream that answers at once,
 *       stopped with SIGTERM after {@code --seconds} (20); prompts done is read from the checkpoint it leaves.</li>
 * </ul>
 * Printed per cell: exit status, wall seconds, RSS max (MiB, sampled every 100 ms) and, if it failed, the last
 * line of its output. Run through {@code bench/batch-million}.
 */
public final class MillionBench {
    public static void main(String[] args) throws Exception {
        Path dist = Path.of("distribution/target/caduceus");
        int prompts = 1_000_000;
        int batchSize = 10;
        int seconds = 20;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dist" -> dist = Path.of(args[++i]);
                case "--prompts" -> prompts = Integer.parseInt(args[++i]);
                case "--batch-size" -> batchSize = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --dist DIR --prompts 1000000 --batch-size 10 --seconds 20");
            }
        }
        var tmp = Files.createTempDirectory("batch-million");
        try (var upstream = ScriptedUpstream.start().recordRequests(false)) {
            upstream.setDefault(Turn.reasoning("Thinking.").withText("Done."));
            var dataset = tmp.resolve("data.jsonl");
            try (var out = Files.newBufferedWriter(dataset)) {
                for (int i = 0; i < prompts; i++) out.append("{\"prompt\": \"Prompt ").append(String.valueOf(i)).append("\"}\n");
            }
            System.out.printf(Locale.ROOT, "dataset: %,d prompts, %,d bytes%n", prompts, Files.size(dataset));
            System.out.println("| cell | exit | seconds | RSS max MiB | prompts done | note |");
            System.out.println("|---|---|---|---|---|---|");

            var resumeOut = Files.createDirectories(tmp.resolve("resume-out"));
            writeCompletedCheckpoint(resumeOut.resolve("checkpoint.json"), dataset, prompts, batchSize);
            var resume = run(dist, upstream, tmp.resolve("home-resume"), dataset, resumeOut, batchSize, List.of("--resume"), 0);
            var rewritten = Files.readString(resumeOut.resolve("checkpoint.json"));
            print("resume, all done (batch size " + batchSize + ")", resume,
                    resume.status() == 0 ? completedCount(rewritten) : -1);

            var freshOut = tmp.resolve("fresh-out");
            var fresh = run(dist, upstream, tmp.resolve("home-fresh"), dataset, freshOut, batchSize, List.of(), seconds);
            long done = Files.exists(freshOut.resolve("checkpoint.json"))
                    ? completedCount(Files.readString(freshOut.resolve("checkpoint.json"))) : -1;
            print("fresh run, SIGTERM after " + seconds + " s (256 workers)", fresh, done);
        } finally {
            BatchBench.deleteTree(tmp);
        }
    }

    record Result(int status, double seconds, long rssKib, String lastLine) {}

    static void print(String cell, Result r, long done) {
        System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %d | %s | %s |%n", cell, r.status(), r.seconds(), r.rssKib() / 1024,
                done < 0 ? "—" : String.format(Locale.ROOT, "%,d", done), r.status() == 0 || r.status() == 130 ? "" : r.lastLine());
    }

    /** Runs {@code caduceus batch}; with {@code stopAfter} > 0 sends SIGTERM after that many seconds. */
    static Result run(Path dist, ScriptedUpstream upstream, Path home, Path dataset, Path out, int batchSize,
                      List<String> extra, int stopAfter) throws Exception {
        var command = new ArrayList<>(List.of(dist.resolve("bin/caduceus").toString(), "batch",
                "--dataset_file=" + dataset, "--batch_size=" + batchSize, "--run_name=million",
                "--output_dir=" + out, "--num_workers=256", "--distribution=terminal_only", "--seed=1", "--no_progress"));
        command.addAll(extra);
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("CADUCEUS_HOME", home.toString());
        builder.environment().put("OPENAI_BASE_URL", upstream.baseUrl());
        builder.environment().put("CADUCEUS_MODEL", ScriptedUpstream.MODEL);
        builder.environment().put("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        builder.environment().put("CADUCEUS_LOG_LEVEL", "warn");
        long start = System.nanoTime();
        var process = builder.start();
        var rssMax = new AtomicLong();
        var sampler = Thread.ofVirtual().start(() -> {
            while (process.isAlive()) {
                rssMax.accumulateAndGet(BatchBench.rssKib(process.pid()), Math::max);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        var output = new StringBuilder();
        var reader = Thread.ofVirtual().start(() -> {
            try {
                output.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException e) {
                output.append(e);
            }
        });
        if (stopAfter > 0 && !process.waitFor(stopAfter, TimeUnit.SECONDS)) process.destroy(); // SIGTERM: Ctrl+C's path
        int status = process.waitFor();
        double seconds = (System.nanoTime() - start) / 1e9;
        reader.join();
        sampler.interrupt();
        var lines = output.toString().strip().split("\n");
        String last = lines[lines.length - 1];
        for (var line : lines) if (line.contains("OutOfMemoryError") || line.contains("Error:")) { last = line; break; }
        return new Result(status, seconds, rssMax.get(), last.length() > 160 ? last.substring(0, 160) + "…" : last);
    }

    /** A Caduceus checkpoint of a finished run: every prompt completed, a batch entry per {@code batchSize} prompts. */
    static void writeCompletedCheckpoint(Path file, Path dataset, int prompts, int batchSize) throws Exception {
        var digest = MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(dataset)) {
            var buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) digest.update(buffer, 0, n);
        }
        int batches = (prompts + batchSize - 1) / batchSize;
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            out.write("{\n  \"run_name\": \"million\",\n  \"completed_prompts\": [");
            for (int i = 0; i < prompts; i++) out.append(i == 0 ? "\n    " : ",\n    ").append(String.valueOf(i));
            out.write("\n  ],\n  \"batch_stats\": {");
            for (int b = 0; b < batches; b++) {
                int inBatch = Math.min(batchSize, prompts - b * batchSize), calls = b % 7; // entries that differ
                out.append(b == 0 ? "\n    \"" : ",\n    \"").append(String.valueOf(b)).append("\": {\"processed\": ")
                        .append(String.valueOf(inBatch)).append(", \"skipped\": 0, \"discarded_no_reasoning\": 0, \"failed\": 0, "
                                + "\"tool_stats\": {\"terminal\": {\"count\": ").append(String.valueOf(calls))
                        .append(", \"success\": ").append(String.valueOf(calls)).append(", \"failure\": 0}}, "
                                + "\"reasoning_stats\": {\"total_assistant_turns\": ").append(String.valueOf(inBatch))
                        .append(", \"turns_with_reasoning\": ").append(String.valueOf(inBatch))
                        .append(", \"turns_without_reasoning\": 0}}");
            }
            out.write("\n  },\n  \"last_updated\": \"2026-12-06T00:00:00\",\n  \"format\": \"caduceus-batch-1\",\n"
                    + "  \"dataset_sha256\": \"" + HexFormat.of().formatHex(digest.digest()) + "\",\n  \"total_prompts\": "
                    + prompts + ",\n  \"distribution\": \"terminal_only\",\n  \"seed\": 1,\n  \"next_batch_num\": " + batches
                    + ",\n  \"discarded_prompts\": [],\n  \"failed_prompts\": {},\n  \"invocations\": [{\"started_at\": "
                    + "\"2026-12-06T00:00:00\", \"finished_at\": \"2026-12-06T01:00:00\", \"processed\": " + prompts
                    + ", \"failed\": 0, \"discarded_no_reasoning\": 0}]\n}\n");
        }
    }

    private static final Pattern COMPLETED = Pattern.compile("\"completed_prompts\": \\[([^\\]]*)\\]");

    /** How many indexes {@code completed_prompts} lists. */
    static long completedCount(String checkpoint) {
        var m = COMPLETED.matcher(checkpoint);
        if (!m.find()) return -1;
        var list = m.group(1).strip();
        return list.isEmpty() ? 0 : list.chars().filter(c -> c == ',').count() + 1;
    }
}
