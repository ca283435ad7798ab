package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.caduceus.spi.agent.JournalEntry;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The runs API's frames encoded once for every subscriber of a run (issue 41: 10,000 streams of one run built and
 * serialized each event 10,000 times): the first stream to send entry {@code seq} of a run builds its frame
 * ({@link RunEventFrames#frame}) and serializes it; the others send the same JSON text, as a node the host's stream
 * writes verbatim (a {@link RawValue} in a {@link POJONode}). A fixed table of {@link #SLOTS} recent frames indexed
 * by run and sequence number: a slot taken by another frame is simply a miss (that stream encodes its own), so the
 * table never grows and needs no lock. Thread-safe.
 */
final class EncodedFrames {
    static final int SLOTS = 4096;
    /** A cached "this entry has no frame". */
    private static final JsonNode NONE = new POJONode(null);

    private record Slot(String runId, long seq, JsonNode frame) {}

    private final ObjectMapper json;
    private final AtomicReferenceArray<Slot> slots = new AtomicReferenceArray<>(SLOTS);

    EncodedFrames(ObjectMapper json) {
        this.json = json;
    }

    /** The frame of {@code entry}, encoded, or null when the entry has none. */
    JsonNode frame(JournalEntry entry) {
        int index = Math.floorMod(entry.runId().hashCode() * 31 + Long.hashCode(entry.seq()), SLOTS);
        var slot = slots.get(index);
        if (slot != null && slot.seq() == entry.seq() && slot.runId().equals(entry.runId()))
            return slot.frame() == NONE ? null : slot.frame();
        var tree = RunEventFrames.frame(entry);
        JsonNode encoded;
        try {
            encoded = tree == null ? NONE : new POJONode(new RawValue(json.writeValueAsString(tree)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a run event", e); // a tree of plain values: never
        }
        slots.set(index, new Slot(entry.runId(), entry.seq(), encoded));
        return encoded == NONE ? null : encoded;
    }
}
