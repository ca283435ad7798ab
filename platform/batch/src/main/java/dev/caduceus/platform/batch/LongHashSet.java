package dev.caduceus.platform.batch;

/**
 * A set of {@code long}s in one open-addressed array (8 bytes a member at most half full): the
 * fingerprints the merge and a resume keep of up to millions of prompts, where a
 * {@code HashSet<String>} of the prompts themselves ran out of heap. Not thread-safe.
 */
final class LongHashSet {
    private long[] slots = new long[1024];
    private boolean hasZero;
    private int size;

    /** Adds {@code value}; false if it was there already. */
    boolean add(long value) {
        if (value == 0) {
            if (hasZero) return false;
            hasZero = true;
            size++;
            return true;
        }
        if ((size + 1) * 2 > slots.length) grow();
        if (!insert(slots, value)) return false;
        size++;
        return true;
    }

    boolean contains(long value) {
        if (value == 0) return hasZero;
        int mask = slots.length - 1;
        for (int i = slot(value, mask); ; i = (i + 1) & mask) {
            if (slots[i] == value) return true;
            if (slots[i] == 0) return false;
        }
    }

    int size() {
        return size;
    }

    private void grow() {
        var bigger = new long[slots.length * 2];
        for (long v : slots) if (v != 0) insert(bigger, v);
        slots = bigger;
    }

    private static boolean insert(long[] table, long value) {
        int mask = table.length - 1;
        for (int i = slot(value, mask); ; i = (i + 1) & mask) {
            if (table[i] == value) return false;
            if (table[i] == 0) {
                table[i] = value;
                return true;
            }
        }
    }

    private static int slot(long value, int mask) {
        long h = value * 0x9E3779B97F4A7C15L; // the members are hashes already; this spreads any that are not
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
