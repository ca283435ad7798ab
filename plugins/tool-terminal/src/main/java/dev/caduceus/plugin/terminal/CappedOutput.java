package dev.caduceus.plugin.terminal;

import java.util.regex.Pattern;

/**
 * Command output kept within a fixed size while it is read: the first {@code headChars} characters
 * and the last {@code tailChars}; everything in between is only counted. With {@code headChars = 0}
 * it is a ring buffer of the most recent output (background processes).
 *
 * <p>Threading: thread-safe; the stdout and stderr pumps append concurrently, so the text is merged
 * in arrival order (per read chunk).
 */
final class CappedOutput {
    private static final Pattern ANSI = Pattern.compile(
            "\u001B(?:\\[[0-?]*[ -/]*[@-~]|\\][^\u0007\u001B]*(?:\u0007|\u001B\\\\)?|[@-Z\\\\-_])");

    private final int headChars;
    private final int tailChars;
    private final StringBuilder head = new StringBuilder();
    private final StringBuilder tail = new StringBuilder();
    private long total;

    CappedOutput(int headChars, int tailChars) {
        this.headChars = headChars;
        this.tailChars = tailChars;
    }

    /** The terminal tool's split of {@code maxChars}: first 40 %, last 60 %. */
    static CappedOutput forForeground(int maxChars) {
        int head = maxChars * 40 / 100;
        return new CappedOutput(head, maxChars - head);
    }

    synchronized void append(CharSequence chunk) {
        total += chunk.length();
        int start = 0;
        if (head.length() < headChars) {
            start = Math.min(chunk.length(), headChars - head.length());
            head.append(chunk, 0, start);
        }
        if (start == chunk.length()) return;
        tail.append(chunk, start, chunk.length());
        if (tail.length() > 2 * tailChars + 8192) tail.delete(0, tail.length() - tailChars);
    }

    /** Characters seen so far, including the ones not kept. */
    synchronized long total() {
        return total;
    }

    /** The kept text, ANSI escapes removed, with the truncation marker when something was dropped. */
    synchronized String text() {
        String kept = tail.length() > tailChars ? tail.substring(tail.length() - tailChars) : tail.toString();
        long omitted = total - head.length() - kept.length();
        if (omitted <= 0) return stripAnsi(head + kept);
        return stripAnsi(head.toString()) + "\n\n... [OUTPUT TRUNCATED - " + omitted + " chars omitted out of "
                + total + " total] ...\n\n" + stripAnsi(kept);
    }

    /** The last {@code n} kept characters, ANSI removed (no marker). */
    synchronized String last(int n) {
        String all = head + (tail.length() > tailChars ? tail.substring(tail.length() - tailChars) : tail.toString());
        return stripAnsi(all.length() > n ? all.substring(all.length() - n) : all);
    }

    static String stripAnsi(String s) {
        return s.indexOf('\u001B') < 0 ? s : ANSI.matcher(s).replaceAll("");
    }
}
