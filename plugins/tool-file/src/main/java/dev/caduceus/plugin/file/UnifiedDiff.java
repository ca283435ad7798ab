package dev.caduceus.plugin.file;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff ({@code a/} and {@code b/} prefixes, 3 lines of context) between two versions of
 * a file; {@code null} stands for "no file" ({@code /dev/null}). Line diff by longest common
 * subsequence after trimming the common head and tail; a very large changed middle is shown as one
 * replacement. Stateless.
 */
final class UnifiedDiff {
    private static final int CONTEXT = 3;
    private static final long MAX_CELLS = 4_000_000L;

    private UnifiedDiff() {}

    private record Op(char kind, String line) {}

    /** The diff of {@code path} from {@code before} to {@code after}; empty when they are equal. */
    static String of(String path, String before, String after) {
        var a = before == null ? List.<String>of() : TextLines.of(before).lines();
        var b = after == null ? List.<String>of() : TextLines.of(after).lines();
        var ops = ops(a, b);
        if (ops.stream().allMatch(o -> o.kind() == ' ')) return "";
        var sb = new StringBuilder();
        sb.append("--- ").append(before == null ? "/dev/null" : "a/" + path).append('\n');
        sb.append("+++ ").append(after == null ? "/dev/null" : "b/" + path).append('\n');
        hunks(ops, sb);
        return sb.toString();
    }

    private static List<Op> ops(List<String> a, List<String> b) {
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) head++;
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) tail++;
        var ops = new ArrayList<Op>();
        for (int i = 0; i < head; i++) ops.add(new Op(' ', a.get(i)));
        middle(a.subList(head, a.size() - tail), b.subList(head, b.size() - tail), ops);
        for (int i = a.size() - tail; i < a.size(); i++) ops.add(new Op(' ', a.get(i)));
        return ops;
    }

    private static void middle(List<String> a, List<String> b, List<Op> ops) {
        int n = a.size();
        int m = b.size();
        if ((long) n * m > MAX_CELLS) {
            a.forEach(l -> ops.add(new Op('-', l)));
            b.forEach(l -> ops.add(new Op('+', l)));
            return;
        }
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--)
            for (int j = m - 1; j >= 0; j--)
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a.get(i).equals(b.get(j))) { ops.add(new Op(' ', a.get(i++))); j++; }
            else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.add(new Op('-', a.get(i++)));
            else ops.add(new Op('+', b.get(j++)));
        }
    }

    private static void hunks(List<Op> ops, StringBuilder sb) {
        int k = 0;
        while (k < ops.size()) {
            while (k < ops.size() && ops.get(k).kind() == ' ') k++;
            if (k == ops.size()) return;
            int start = Math.max(0, k - CONTEXT);
            int end = k;
            int quiet = 0;
            while (end < ops.size() && quiet <= 2 * CONTEXT) {
                quiet = ops.get(end).kind() == ' ' ? quiet + 1 : 0;
                end++;
            }
            end = Math.min(ops.size(), end - quiet + Math.min(quiet, CONTEXT));
            writeHunk(ops, start, end, sb);
            k = end;
        }
    }

    private static void writeHunk(List<Op> ops, int start, int end, StringBuilder sb) {
        int aStart = 1;
        int bStart = 1;
        for (int i = 0; i < start; i++) {
            if (ops.get(i).kind() != '+') aStart++;
            if (ops.get(i).kind() != '-') bStart++;
        }
        int aLen = 0;
        int bLen = 0;
        for (int i = start; i < end; i++) {
            if (ops.get(i).kind() != '+') aLen++;
            if (ops.get(i).kind() != '-') bLen++;
        }
        sb.append("@@ -").append(aLen == 0 ? aStart - 1 : aStart).append(',').append(aLen)
                .append(" +").append(bLen == 0 ? bStart - 1 : bStart).append(',').append(bLen).append(" @@\n");
        for (int i = start; i < end; i++) sb.append(ops.get(i).kind()).append(ops.get(i).line()).append('\n');
    }
}
