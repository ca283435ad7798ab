package dev.caduceus.platform.batch;

import dev.caduceus.platform.batch.Checkpoint.BatchStat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of the batches that are done, which no worker changes any more: each batch's {@code batch_stats}
 * entry as a few bytes (variable-length integers, tool names by number), identical ones shared, and their sum. A
 * run with a million one-prompt batches held a million {@link BatchStat} objects with a map each, ~150 bytes a
 * batch, more than the default heap; encoded they are 4 bytes a batch when most are alike (as one-prompt batches
 * are) and ~40 when not. Not thread-safe: the checkpoint's lock guards it.
 */
final class FinishedBatches {
    /** At most this many distinct encodings are shared, and this many of their texts cached. */
    private static final int SHARED = 4096;

    /** By batch number while the numbers are about as many as the batches (a run's: 0, 1, 2, …); others in {@link #sparse}. */
    private byte[][] dense = new byte[1024][];
    private final TreeMap<Integer, byte[]> sparse = new TreeMap<>();
    private int size;
    private final Map<ByteBuffer, byte[]> sharedCodes = new HashMap<>();
    private final Map<ByteBuffer, String> texts = new HashMap<>();
    private final List<String> toolNames = new ArrayList<>();
    private final Map<String, Integer> toolNumbers = new HashMap<>();
    /** The sum of every finished batch's counters. */
    private final BatchStat total = new BatchStat();

    int size() {
        return size;
    }

    /** The sum of the finished batches' counters (read-only). */
    BatchStat total() {
        return total;
    }

    /** Stores batch {@code num}'s final counters; it must not be stored already. */
    void add(int num, BatchStat stat) {
        if (num >= 0 && num < dense.length && dense[num] != null || sparse.containsKey(num))
            throw new IllegalStateException("batch " + num + " is already finished");
        var code = share(encode(stat));
        if (num >= 0 && num < 2L * size + dense.length) {
            if (num >= dense.length) dense = Arrays.copyOf(dense, Math.max(num + 1, dense.length * 2));
            dense[num] = code;
        } else {
            sparse.put(num, code);
        }
        size++;
        add(total, stat, 1);
    }

    /** Takes batch {@code num} back out (a resume that runs more of it), or null if it is not here. */
    BatchStat remove(int num) {
        byte[] code;
        if (num >= 0 && num < dense.length && dense[num] != null) {
            code = dense[num];
            dense[num] = null;
        } else {
            code = sparse.remove(num);
            if (code == null) return null;
        }
        size--;
        var stat = decode(code);
        add(total, stat, -1);
        return stat;
    }

    /** What {@link #forEach} hands over: a batch number and its entry's text. */
    interface Visitor {
        void visit(int num, String text) throws IOException;
    }

    /** Every finished batch in ascending number, with its entry's text as {@code written} makes it. */
    void forEach(java.util.function.Function<BatchStat, String> written, Visitor visitor) throws IOException {
        var others = sparse.entrySet().iterator();
        var other = others.hasNext() ? others.next() : null;
        for (int num = 0; num < dense.length; num++) {
            if (dense[num] == null) continue;
            for (; other != null && other.getKey() < num; other = others.hasNext() ? others.next() : null)
                visitor.visit(other.getKey(), text(other.getValue(), written));
            visitor.visit(num, text(dense[num], written));
        }
        for (; other != null; other = others.hasNext() ? others.next() : null)
            visitor.visit(other.getKey(), text(other.getValue(), written));
    }

    private String text(byte[] code, java.util.function.Function<BatchStat, String> written) {
        var key = ByteBuffer.wrap(code);
        var known = texts.get(key);
        if (known != null) return known;
        var text = written.apply(decode(code));
        if (texts.size() < SHARED) texts.put(key, text);
        return text;
    }

    private byte[] share(byte[] code) {
        var key = ByteBuffer.wrap(code);
        var known = sharedCodes.get(key);
        if (known != null) return known;
        if (sharedCodes.size() < SHARED) sharedCodes.put(key, code);
        return code;
    }

    private static void add(BatchStat into, BatchStat s, int sign) {
        into.processed += sign * s.processed;
        into.skipped += sign * s.skipped;
        into.discarded += sign * s.discarded;
        into.failed += sign * s.failed;
        into.assistantTurns += sign * s.assistantTurns;
        into.turnsWithReasoning += sign * s.turnsWithReasoning;
        into.turnsWithoutReasoning += sign * s.turnsWithoutReasoning;
        s.tools.forEach((name, c) -> {
            var t = into.tools.computeIfAbsent(name, n -> new ToolStats.Counts());
            t.count += sign * c.count;
            t.success += sign * c.success;
            t.failure += sign * c.failure;
        });
    }

    private byte[] encode(BatchStat s) {
        var out = new ByteArrayOutputStream(16);
        for (int v : new int[] {s.processed, s.skipped, s.discarded, s.failed, s.assistantTurns, s.turnsWithReasoning,
                s.turnsWithoutReasoning, s.tools.size()})
            varint(out, v);
        for (var e : s.tools.entrySet()) { // a TreeMap: in name order, as the entry is written
            varint(out, toolNumbers.computeIfAbsent(e.getKey(), name -> {
                toolNames.add(name);
                return toolNames.size() - 1;
            }));
            varint(out, e.getValue().count);
            varint(out, e.getValue().success);
            varint(out, e.getValue().failure);
        }
        return out.toByteArray();
    }

    private BatchStat decode(byte[] code) {
        var in = ByteBuffer.wrap(code);
        var s = new BatchStat();
        s.processed = varint(in);
        s.skipped = varint(in);
        s.discarded = varint(in);
        s.failed = varint(in);
        s.assistantTurns = varint(in);
        s.turnsWithReasoning = varint(in);
        s.turnsWithoutReasoning = varint(in);
        for (int tools = varint(in); tools > 0; tools--) {
            var name = toolNames.get(varint(in));
            var c = new ToolStats.Counts();
            c.count = varint(in);
            c.success = varint(in);
            c.failure = varint(in);
            s.tools.put(name, c);
        }
        return s;
    }

    /** Zig-zag, then seven bits a byte (a hand-edited checkpoint may hold negative counters). */
    private static void varint(ByteArrayOutputStream out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private static int varint(ByteBuffer in) {
        int v = 0, shift = 0, b;
        do {
            b = in.get();
            v |= (b & 0x7F) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return (v >>> 1) ^ -(v & 1);
    }
}
