package dev.caduceus.platform.batch;

import dev.caduceus.support.services.BatchCatalog.Distribution;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Toolset sampling: one independent draw per available toolset in the distribution's
 * order, {@code u = nextDouble() * 100} included when {@code u < p}; if nothing was drawn, the
 * available toolset with the highest percent (the first on ties). Each prompt's generator is a
 * {@link SplittableRandom} seeded with the first 8 bytes (big-endian) of
 * {@code sha256("<seed>:<prompt_index>")}, so a rerun samples the same toolsets. {@code memory} is
 * never given to batch agents. Immutable; thread-safe.
 *
 * @param available the toolsets that resolve in this installation
 */
record ToolsetSampler(Distribution distribution, Set<String> available, long seed) {
    /** The toolset batch agents never get (batch runs have no memory scope). */
    static final String MEMORY = "memory";

    ToolsetSampler {
        available = Set.copyOf(available);
    }

    /** The distribution's toolsets that can be drawn here, in order. */
    List<String> usable() {
        var out = new ArrayList<String>();
        for (var name : distribution.toolsetPercent().keySet())
            if (available.contains(name) && !name.equals(MEMORY)) out.add(name);
        return out;
    }

    /** The distribution's toolsets that do not resolve here (the start-up warning), in order. */
    List<String> missing() {
        var out = new ArrayList<String>();
        for (var name : distribution.toolsetPercent().keySet())
            if (!available.contains(name) || name.equals(MEMORY)) out.add(name);
        return out;
    }

    /** The toolsets for {@code promptIndex}, in the distribution's order; empty only when none is usable. */
    List<String> sample(int promptIndex) {
        var random = new SplittableRandom(seedFor(seed, promptIndex));
        var chosen = new ArrayList<String>();
        String best = null;
        int bestPercent = -1;
        for (Map.Entry<String, Integer> e : distribution.toolsetPercent().entrySet()) {
            var name = e.getKey();
            if (!available.contains(name) || name.equals(MEMORY)) continue;
            double u = random.nextDouble() * 100;
            if (u < e.getValue()) chosen.add(name);
            if (e.getValue() > bestPercent) {
                best = name;
                bestPercent = e.getValue();
            }
        }
        if (chosen.isEmpty() && best != null) chosen.add(best);
        return List.copyOf(chosen);
    }

    static long seedFor(long seed, int promptIndex) {
        try {
            var digest = MessageDigest.getInstance("SHA-256")
                    .digest((seed + ":" + promptIndex).getBytes(StandardCharsets.UTF_8));
            long value = 0;
            for (int i = 0; i < 8; i++) value = (value << 8) | (digest[i] & 0xff);
            return value;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
