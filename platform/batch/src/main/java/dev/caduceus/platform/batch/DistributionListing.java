package dev.caduceus.platform.batch;

import dev.caduceus.support.services.BatchCatalog.Distribution;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code --list_distributions}: each distribution with its toolsets and their chances. Stateless. */
final class DistributionListing {
    private DistributionListing() {}

    static void print(PrintStream out, List<Distribution> distributions, Set<String> available) {
        out.println("📊 Available Toolset Distributions");
        out.println("=".repeat(70));
        var sorted = new ArrayList<>(distributions);
        sorted.sort(Comparator.comparing(Distribution::name));
        for (var d : sorted) {
            out.println();
            out.println("📊 Distribution: " + d.name());
            out.println("   Description: " + d.description());
            out.println("   Toolsets:");
            var entries = new ArrayList<>(d.toolsetPercent().entrySet());
            entries.sort(Comparator.comparing((Map.Entry<String, Integer> e) -> -e.getValue())); // stable: order kept on ties
            for (var e : entries) {
                var missing = !available.contains(e.getKey()) || e.getKey().equals(ToolsetSampler.MEMORY);
                out.println(String.format(Locale.ROOT, "     • %-15s : %3d%% chance%s", e.getKey(), e.getValue(),
                        missing ? "  (not available)" : ""));
            }
        }
        out.println();
        out.println("Usage: caduceus batch --dataset_file=data.jsonl --batch_size=10 --run_name=my_run --distribution=<name>");
    }
}
