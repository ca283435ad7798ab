package dev.caduceus.plugin.memory;

import static java.util.Objects.requireNonNull;

/**
 * One edit of a store, from the single-call arguments or one item of {@code operations}.
 *
 * @param content  the entry text (add, replace); null when not given
 * @param oldText  a substring of the entry to change (replace, remove); null when not given
 */
record Operation(Action action, String content, String oldText) {
    Operation {
        requireNonNull(action, "action");
    }

    /** The three actions. */
    enum Action {
        ADD, REPLACE, REMOVE;

        String wireName() { return name().toLowerCase(java.util.Locale.ROOT); }
    }
}
