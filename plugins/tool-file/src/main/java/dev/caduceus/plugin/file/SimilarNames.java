package dev.caduceus.plugin.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Suggests up to five names from a missing file's directory, nearest by edit distance. Stateless. */
final class SimilarNames {
    static final int MAX = 5;
    private static final int MAX_SCANNED = 10_000;

    private SimilarNames() {}

    /** Names in the parent directory of {@code missing}, closest first; empty when there is none. */
    static List<String> near(Path missing) {
        var dir = missing.getParent();
        if (dir == null || missing.getFileName() == null || !Files.isDirectory(dir)) return List.of();
        var wanted = missing.getFileName().toString().toLowerCase(Locale.ROOT);
        try (var names = Files.list(dir)) {
            return names.limit(MAX_SCANNED).map(p -> p.getFileName().toString())
                    .sorted(Comparator.<String>comparingInt(n -> distance(wanted, n.toLowerCase(Locale.ROOT)))
                            .thenComparing(Comparator.naturalOrder()))
                    .limit(MAX).toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            var t = prev; prev = cur; cur = t;
        }
        return prev[b.length()];
    }
}
