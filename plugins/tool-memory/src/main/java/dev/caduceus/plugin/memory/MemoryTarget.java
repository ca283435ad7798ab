package dev.caduceus.plugin.memory;

import java.util.Optional;

/** The two stores of one memory scope, with their names in arguments and storage. */
enum MemoryTarget {
    MEMORY("memory", "MEMORY (your personal notes)"),
    USER("user", "USER PROFILE (who the user is)");

    private final String wireName;
    private final String heading;

    MemoryTarget(String wireName, String heading) {
        this.wireName = wireName;
        this.heading = heading;
    }

    /** The name used in arguments, results and the {@code store} column. */
    String wireName() { return wireName; }

    /** The heading of this store's block in the system-prompt snapshot, before the usage. */
    String heading() { return heading; }

    static Optional<MemoryTarget> of(String name) {
        for (var t : values()) if (t.wireName.equals(name)) return Optional.of(t);
        return Optional.empty();
    }
}
