package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;

/**
 * Writes Responses events: {@code event: <type>} plus
 * {@code {"type":…, fields…, "sequence_number":N}}, numbering from {@code firstSeq}. Each frame is
 * appended to the journal first (when there is one), so a replay sees what the client may have
 * missed. Frames numbered {@code <= skipThrough} are counted but not written (replay cursors).
 * Confined to the stream's thread.
 */
final class EventWriter {
    private final EventStream out;
    private final ResponseStore journal;
    private final String responseId;
    private final long skipThrough;
    private long seq;

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
        if (journal != null) journal.append(responseId, seq, type, frame.toString());
        var current = seq++;
        if (current > skipThrough) out.event(null, type, frame);
    }

    long nextSeq() {
        return seq;
    }
}
