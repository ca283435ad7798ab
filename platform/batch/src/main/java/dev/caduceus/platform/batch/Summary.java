package dev.caduceus.platform.batch;

import java.io.PrintStream;
import java.util.Locale;

/** The end-of-run summary: counts, the tool table, reasoning coverage, output files, the resume hint. Stateless. */
final class Summary {
    private Summary() {}

    static void print(PrintStream out, Checkpoint c, RunFolder.MergeResult merge, int processed, int failed,
                      int discarded, double seconds, RunFolder folder) {
        out.println();
        out.println("=".repeat(70));
        out.println("📊 BATCH PROCESSING COMPLETE");
        out.println("=".repeat(70));
        out.println("✅ Prompts processed this invocation: " + processed);
        out.println("❌ Failed: " + failed);
        out.println("🗑️  Discarded (no reasoning): " + discarded);
        out.println("📄 Trajectories in merged file: " + merge.trajectories());
        out.println("📦 Batch files merged: " + merge.batchFiles());
        out.println(String.format(Locale.ROOT, "⏱️  Duration: %.2fs", seconds));
        var tools = Statistics.toolTotals(c);
        if (!tools.isEmpty()) {
            out.println();
            out.println(String.format(Locale.ROOT, "%-25s %10s %10s %10s %s", "Tool Name", "Count", "Success",
                    "Failure", "Success Rate"));
            out.println("-".repeat(70));
            tools.forEach((name, t) -> out.println(String.format(Locale.ROOT, "%-25s %10d %10d %10d %.1f%%", name,
                    t.count, t.success, t.failure, Statistics.rate(t.success, t.success, t.failure))));
        }
        int turns = 0, with = 0;
        for (var b : c.batchTotals()) {
            turns += b.assistantTurns;
            with += b.turnsWithReasoning;
        }
        out.println();
        out.println(String.format(Locale.ROOT, "🧠 Reasoning coverage: %.1f%% of %d assistant turns",
                turns == 0 ? 0.0 : with * 100.0 / turns, turns));
        out.println();
        out.println("💾 Output: " + folder.dir());
        out.println("   " + folder.trajectories().getFileName() + ", " + folder.statistics().getFileName() + ", "
                + folder.checkpoint().getFileName() + ", batch_*.jsonl");
        if (!c.failed.isEmpty()) out.println("Re-run with --resume to retry " + c.failed.size() + " failed prompts");
    }
}
