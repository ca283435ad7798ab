package dev.caduceus.plugin.memory;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * The edit rules for one store: {@code add}, {@code replace}, {@code remove} and a batch
 * of operations (all or nothing, limit checked at the end), each turning the current entries into an
 * {@link Outcome}. Pure: no storage, no clock. Immutable.
 */
final class MemoryEdits {
    static final String NOTE = "Saved. The system prompt keeps showing the notes from the start of this turn.";

    private final MemoryTarget target;
    private final int limit;

    MemoryEdits(MemoryTarget target, int limit) {
        this.target = target;
        this.limit = limit;
    }

    Outcome apply(List<String> entries, Operation op) {
        return switch (op.action()) {
            case ADD -> add(entries, op.content());
            case REPLACE -> replace(entries, op.oldText(), op.content());
            case REMOVE -> remove(entries, op.oldText());
        };
    }

    Outcome add(List<String> entries, String rawContent) {
        var content = strip(rawContent);
        if (content.isEmpty()) return failure("Content cannot be empty.");
        var refusal = EntryText.refusal(content);
        if (refusal.isPresent()) return failure(refusal.get());
        if (entries.contains(content))
            return Outcome.unchanged(success(entries, "Entry already exists (no duplicate added)."));
        var next = new ArrayList<>(entries);
        next.add(content);
        if (EntryText.size(next) > limit) {
            int current = EntryText.size(entries);
            return overLimit(entries, "Memory at " + current + "/" + limit + " chars. Adding this entry ("
                    + EntryText.length(content) + " chars) would exceed the limit. Replace or remove entries first.");
        }
        return new Outcome(next, success(next, "Entry added."));
    }

    Outcome replace(List<String> entries, String rawOldText, String rawContent) {
        var oldText = strip(rawOldText);
        var content = strip(rawContent);
        if (oldText.isEmpty()) return failure("old_text cannot be empty.");
        if (content.isEmpty()) return failure("Content cannot be empty. Use 'remove' to delete an entry.");
        var refusal = EntryText.refusal(content);
        if (refusal.isPresent()) return failure(refusal.get());
        var match = match(entries, oldText);
        if (match.failure().isPresent()) return match.failure().get();
        var next = new ArrayList<>(entries);
        next.set(match.index(), content);
        if (EntryText.size(next) > limit)
            return overLimit(entries, "Replacement would put memory at " + EntryText.size(next) + "/" + limit
                    + " chars. Shorten the new content, or remove other entries first.");
        return new Outcome(next, success(next, "Entry replaced."));
    }

    Outcome remove(List<String> entries, String rawOldText) {
        var oldText = strip(rawOldText);
        if (oldText.isEmpty()) return failure("old_text cannot be empty.");
        var match = match(entries, oldText);
        if (match.failure().isPresent()) return match.failure().get();
        var next = new ArrayList<>(entries);
        next.remove(match.index());
        return new Outcome(next, success(next, "Entry removed."));
    }

    /**
     * Applies {@code ops} in order to a working copy; the first failure aborts the batch with nothing
     * stored. Duplicate adds are skipped. The limit is checked once, on the final entries.
     */
    Outcome batch(List<String> entries, List<Operation> ops) {
        var working = List.copyOf(entries);
        for (int i = 0; i < ops.size(); i++) {
            var op = ops.get(i);
            var step = new MemoryEdits(target, Integer.MAX_VALUE).apply(working, op);
            if (!step.response().path("success").asBoolean()) {
                var error = "Operation " + (i + 1) + " (" + op.action().wireName() + "): "
                        + step.response().path("error").asText() + " No operations were applied.";
                return Outcome.unchanged(withEntries(failureNode(error), entries));
            }
            if (step.changed()) working = step.entries();
        }
        if (EntryText.size(working) > limit)
            return overLimit(entries, "After applying all " + ops.size() + " operations, memory would be at "
                    + EntryText.size(working) + "/" + limit
                    + " chars, over the limit. Remove or shorten more entries in the same call.");
        return new Outcome(working, success(working, "Applied " + ops.size() + " operation(s)."));
    }

    /** The one entry {@code oldText} designates (identical duplicates count as one; the first wins), or the failure. */
    private Match match(List<String> entries, String oldText) {
        var hits = new LinkedHashSet<String>();
        int first = -1;
        for (int i = 0; i < entries.size(); i++) {
            if (!entries.get(i).contains(oldText)) continue;
            if (first < 0) first = i;
            hits.add(entries.get(i));
        }
        if (hits.isEmpty()) {
            var node = failureNode("No entry matched '" + oldText + "'.");
            node.set("current_entries", shown(entries));
            return new Match(-1, Optional.of(Outcome.unchanged(node)));
        }
        if (hits.size() > 1) {
            var node = failureNode("Multiple entries matched '" + oldText + "'. Be more specific.");
            var previews = node.putArray("matches");
            hits.forEach(h -> previews.add(EntryText.preview(EntryText.shown(h))));
            return new Match(-1, Optional.of(Outcome.unchanged(node)));
        }
        return new Match(first, Optional.empty());
    }

    private record Match(int index, Optional<Outcome> failure) {}

    private ObjectNode success(List<String> entries, String message) {
        var node = JsonNodeFactory.instance.objectNode();
        node.put("success", true).put("done", true).put("target", target.wireName())
                .put("usage", EntryText.usage(entries, limit)).put("entry_count", entries.size())
                .put("message", message).put("note", NOTE);
        return node;
    }

    private Outcome overLimit(List<String> entries, String error) {
        return Outcome.unchanged(withEntries(failureNode(error), entries));
    }

    /** Adds the entries as stored now and {@code "usage": "<cur>/<limit>"}, for over-limit and batch errors. */
    private ObjectNode withEntries(ObjectNode node, List<String> entries) {
        node.set("current_entries", shown(entries));
        node.put("usage", EntryText.size(entries) + "/" + limit);
        return node;
    }

    private static Outcome failure(String error) {
        return Outcome.unchanged(failureNode(error));
    }

    static ObjectNode failureNode(String error) {
        return JsonNodeFactory.instance.objectNode().put("success", false).put("error", error);
    }

    private static ArrayNode shown(List<String> entries) {
        var array = JsonNodeFactory.instance.arrayNode();
        entries.forEach(e -> array.add(EntryText.shown(e)));
        return array;
    }

    private static String strip(String text) {
        return text == null ? "" : text.strip();
    }
}
