package dev.caduceus.plugin.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders the memory snapshot for the system prompt: one block per non-empty store (notes first, then the
 * user profile), joined by a blank line. Entries the {@code add} checks would refuse now are shown as
 * {@link EntryText#BLOCKED}; the usage counts the stored text. Pure.
 */
final class MemorySnapshot {
    static final String RULE = "═".repeat(46);

    private MemorySnapshot() {}

    /** The snapshot, or null when both stores are empty. */
    static String render(List<String> memory, List<String> user, MemoryLimits limits) {
        var blocks = new ArrayList<String>();
        if (!memory.isEmpty()) blocks.add(block(MemoryTarget.MEMORY, memory, limits.memory()));
        if (!user.isEmpty()) blocks.add(block(MemoryTarget.USER, user, limits.user()));
        return blocks.isEmpty() ? null : String.join("\n\n", blocks);
    }

    private static String block(MemoryTarget target, List<String> entries, int limit) {
        var shown = entries.stream().map(EntryText::shown).toList();
        return RULE + "\n" + target.heading() + " [" + EntryText.usage(entries, limit) + "]\n" + RULE + "\n"
                + String.join(EntryText.DELIMITER, shown);
    }
}
