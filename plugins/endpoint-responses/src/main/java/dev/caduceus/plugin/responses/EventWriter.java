package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes Responses events: {@code event: <type>} plus
 * {@code {"type":…, fields…, "sequence_number":N}}, numbering from {@code firstSeq}. Each frame is
 * appended to the journal first (when there is one), so a replay sees what the client may have
 * missed; the frames of one batch of the run's events are journaled in one write ({@link #grouping}). Frames
 * numbered {@code <= skipThrough} are counted but not written (replay cursors).
 * Confined to the stream's thread.
 */
final class EventWriter {
    /** A frame of the open group: journaled and sent at the group's end. */
    private record Held(long seq, String type, ObjectNode frame) {}

    private final EventStream out;
    private final ResponseStore journal;
    private final String responseId;
    private final long skipThrough;
    private long seq;
    /** The frames of the open group ({@link #grouping}), or null outside one. */
    private List<Held> held;

    EventWriter(EventStream out, ResponseStore journal, String responseId, long firstSeq, long skipThrough) {
        this.out = out;
        this.journal = journal;
        this.responseId = responseId;
        this.seq = firstSeq;
        this.skipThrough = skipThrough;
    }

    void emit(String type, ObjectNode fields) throws ClientGoneException {
        var frame = JsonNodeFactory.instance.objectNode().put("type", type);
        frame.setAll(fields);
        frame.put("sequence_number", seq);
        var current = seq++;
        if (held != null) {
            held.add(new Held(current, type, frame));
            return;
        }
        if (journal != null) journal.append(responseId, current, type, frame.toString());
        if (current > skipThrough) out.event(null, type, frame);
    }

    /**
     * {@code out} as the run's event pump should write to it: each of its batches (the run's events at hand) also
     * journals the frames this writer emits meanwhile in one write, before any of them is sent, where each would be
     * a write of its own. The stream's owner closes {@code out}; closing this view does nothing.
     */
    EventStream grouping() {
        return new EventStream() {
            @Override
            public void event(Long id, String name, JsonNode data) throws ClientGoneException {
                out.event(id, name, data);
            }

            @Override
            public void data(String raw) throws ClientGoneException {
                out.data(raw);
            }

            @Override
            public void comment(String text) throws ClientGoneException {
                out.comment(text);
            }

            @Override
            public void batch(Frames frames) throws ClientGoneException, InterruptedException {
                out.batch(() -> group(frames));
            }

            @Override
            public void close() {
                // the stream's owner closes out
            }
        };
    }

    /** Runs {@code frames}; what it emits is journaled in one write at its end (also when it throws), then sent. */
    private void group(EventStream.Frames frames) throws ClientGoneException, InterruptedException {
        if (held != null) {
            frames.write();
            return;
        }
        held = new ArrayList<>();
        List<Held> group;
        try {
            frames.write();
        } finally {
            group = held;
            held = null;
            if (journal != null && !group.isEmpty())
                journal.append(responseId, group.stream().map(h -> new ResponseStore.Frame(h.seq(), h.type(),
                        h.frame().toString())).toList());
        }
        for (var h : group)
            if (h.seq() > skipThrough) out.event(null, h.type(), h.frame());
    }

    long nextSeq() {
        return seq;
    }
}
