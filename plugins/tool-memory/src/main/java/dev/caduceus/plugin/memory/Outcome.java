package dev.caduceus.plugin.memory;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * What an edit of one store produced: the entries to store ({@code null} when storage stays as it
 * is) and the result object shown to the model.
 */
record Outcome(List<String> entries, ObjectNode response) {
    Outcome {
        entries = entries == null ? null : List.copyOf(entries);
        requireNonNull(response, "response");
    }

    /** An outcome that leaves storage unchanged (errors, duplicates). */
    static Outcome unchanged(ObjectNode response) {
        return new Outcome(null, response);
    }

    boolean changed() { return entries != null; }
}
