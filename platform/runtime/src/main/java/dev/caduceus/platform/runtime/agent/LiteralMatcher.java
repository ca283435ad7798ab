package dev.caduceus.platform.runtime.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * An Aho–Corasick automaton over a fixed set of literal strings that finds, in one pass over a
 * text (two when it has JSON-escaped line breaks), every stretch covered by an occurrence of one of them, ignoring line breaks ({@code \r},
 * {@code \n}, and their JSON escapes) in the text: {@code base64} and {@code xxd -p} wrap their
 * output, and a pattern matches across those breaks. Patterns never contain line breaks (they are
 * taken out).
 *
 * <p>Hand-written rather than a library because the scan must skip line breaks and report the
 * covered stretches of the original text, which the libraries' match APIs do not. Immutable once
 * built; {@link #replace} is thread-safe.
 */
final class LiteralMatcher {
    private static final char[] NO_KEYS = new char[0];
    private static final int[] NO_TARGETS = new int[0];

    /** Per state: sorted transition characters and their target states. */
    private final char[][] keys;
    private final int[][] targets;
    private final int[] fail;
    /** Per state: the length of the longest pattern ending there (itself or via failure links), else 0. */
    private final int[] out;
    /** Root transitions for ASCII, the common case, without a search; -1 for none. */
    private final int[] rootAscii = new int[128];
    private final int maxLength;

    LiteralMatcher(Collection<String> patterns) {
        var children = new ArrayList<Map<Character, Integer>>();
        var depth = new ArrayList<Integer>();
        var terminal = new ArrayList<Boolean>();
        children.add(new HashMap<>());
        depth.add(0);
        terminal.add(false);
        int longest = 0;
        for (var raw : patterns) {
            var pattern = withoutLineBreaks(raw);
            if (pattern.isEmpty()) continue;
            longest = Math.max(longest, pattern.length());
            int state = 0;
            for (int i = 0; i < pattern.length(); i++) {
                var next = children.get(state).get(pattern.charAt(i));
                if (next == null) {
                    next = children.size();
                    children.get(state).put(pattern.charAt(i), next);
                    children.add(new HashMap<>());
                    depth.add(i + 1);
                    terminal.add(false);
                }
                state = next;
            }
            terminal.set(state, true);
        }
        maxLength = longest;
        int n = children.size();
        keys = new char[n][];
        targets = new int[n][];
        for (int s = 0; s < n; s++) {
            var map = children.get(s);
            var k = new char[map.size()];
            int i = 0;
            for (var c : map.keySet()) k[i++] = c;
            Arrays.sort(k);
            var t = new int[k.length];
            for (i = 0; i < k.length; i++) t[i] = map.get(k[i]);
            keys[s] = k.length == 0 ? NO_KEYS : k;
            targets[s] = t.length == 0 ? NO_TARGETS : t;
        }
        Arrays.fill(rootAscii, -1);
        for (int i = 0; i < keys[0].length; i++) if (keys[0][i] < 128) rootAscii[keys[0][i]] = targets[0][i];
        fail = new int[n];
        out = new int[n];
        var queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int child : targets[0]) {
            queue[tail++] = child;
            out[child] = terminal.get(child) ? depth.get(child) : 0;
        }
        while (head < tail) {
            int u = queue[head++];
            for (int i = 0; i < keys[u].length; i++) {
                char c = keys[u][i];
                int v = targets[u][i];
                int f = fail[u];
                int to;
                while ((to = step(f, c)) < 0 && f != 0) f = fail[f];
                fail[v] = Math.max(to, 0);
                out[v] = terminal.get(v) ? depth.get(v) : out[fail[v]];
                queue[tail++] = v;
            }
        }
    }

    /** True when there is nothing to find. */
    boolean isEmpty() {
        return maxLength == 0;
    }

    /**
     * {@code text} with every maximal stretch covered by pattern occurrences (overlapping ones
     * joined, line breaks inside included) replaced by {@code replacement}. Line breaks are
     * {@code \r} and {@code \n}, and also their JSON escapes (a backslash and {@code n} or {@code r}),
     * because tool results are often JSON documents whose strings carry the wrapped output: that
     * takes a second scan, made only when the text has such an escape, so that a pattern with a
     * literal backslash in it still matches in the first.
     */
    String replace(String text, String replacement) {
        if (maxLength == 0) return text;
        var spans = scan(text, false);
        if (text.indexOf("\\n") >= 0 || text.indexOf("\\r") >= 0) spans = union(spans, scan(text, true));
        if (spans.length == 0) return text;
        var result = new StringBuilder(text.length());
        int from = 0;
        for (int k = 0; k < spans.length; k += 2) {
            result.append(text, from, spans[k]).append(replacement);
            from = spans[k + 1];
        }
        return result.append(text, from, text.length()).toString();
    }

    /** The covered stretches as start, end pairs, ascending and disjoint. */
    private int[] scan(String text, boolean escapedBreaks) {
        // original index of each of the last characters fed to the automaton, as a ring as long as the
        // longest match can be: maxLength, or the text's length when it is shorter (most are)
        var positions = new int[Math.max(1, Math.min(maxLength, text.length()))];
        int ring = positions.length;
        long seen = 0;
        int state = 0;
        int[] spans = NO_TARGETS;
        int count = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') continue;
            if (escapedBreaks && c == '\\' && i + 1 < n && (text.charAt(i + 1) == 'n' || text.charAt(i + 1) == 'r')) {
                i++;
                continue;
            }
            positions[(int) (seen % ring)] = i;
            seen++;
            int to;
            while ((to = step(state, c)) < 0 && state != 0) state = fail[state];
            state = Math.max(to, 0);
            int length = out[state];
            if (length == 0) continue;
            int start = positions[(int) ((seen - length) % ring)];
            int end = i + 1;
            while (count > 0 && spans[2 * count - 2] >= start) count--; // wholly inside the new one
            if (count > 0 && spans[2 * count - 1] > start) {
                spans[2 * count - 1] = end;
            } else {
                if (2 * count + 2 > spans.length) spans = Arrays.copyOf(spans, Math.max(16, spans.length * 2));
                spans[2 * count] = start;
                spans[2 * count + 1] = end;
                count++;
            }
        }
        return count == 0 ? NO_TARGETS : Arrays.copyOf(spans, 2 * count);
    }

    /** The union of two ascending, disjoint span lists, overlapping spans joined. */
    private static int[] union(int[] a, int[] b) {
        if (b.length == 0) return a;
        if (a.length == 0) return b;
        var out = new int[a.length + b.length];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < a.length || j < b.length) {
            int[] from;
            int k;
            if (j >= b.length || (i < a.length && a[i] <= b[j])) {
                from = a;
                k = i;
                i += 2;
            } else {
                from = b;
                k = j;
                j += 2;
            }
            if (n > 0 && from[k] < out[n - 1]) {
                out[n - 1] = Math.max(out[n - 1], from[k + 1]);
            } else {
                out[n++] = from[k];
                out[n++] = from[k + 1];
            }
        }
        return Arrays.copyOf(out, n);
    }

    private int step(int state, char c) {
        if (state == 0 && c < 128) return rootAscii[c];
        int i = Arrays.binarySearch(keys[state], c);
        return i < 0 ? -1 : targets[state][i];
    }

    private static String withoutLineBreaks(String s) {
        return s.indexOf('\n') < 0 && s.indexOf('\r') < 0 ? s : s.replace("\r", "").replace("\n", "");
    }
}
