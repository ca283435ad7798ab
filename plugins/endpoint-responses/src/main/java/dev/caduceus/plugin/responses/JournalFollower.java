package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.time.Duration;
import java.util.Set;

/**
 * Sends a response's event journal after a cursor and follows it while a process still writes it: this one
 * (woken at each append) or another node holding the response's stream lease (polled). A journal that ends
 * without a terminal event (a client that left, a server that died) is closed with one synthesized from the
 * stored response: {@code response.failed} or {@code response.cancelled} when the response says so, else
 * {@code response.incomplete}. Used by {@code GET /v1/responses/{id}?stream=true} and by a background
 * response created with {@code stream: true}. Thread-safe; blocks its caller for the stream's life.
 */
final class JournalFollower {
    static final Set<String> TERMINAL = Set.of("response.completed", "response.failed", "response.incomplete",
            "response.cancelled");
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration KEEPALIVE = Duration.ofSeconds(15);

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final Set<String> live;

    JournalFollower(PlatformContext ctx, ResponseStore store, Set<String> live) {
        this.ctx = ctx;
        this.store = store;
        this.live = live;
    }

    /** The journal of {@code id} (already found to be {@code caller}'s) after {@code after}, then live, to its end. */
    void follow(String id, Caller caller, long after, EventStream out) throws ClientGoneException, InterruptedException {
        long last = after;
        long quietSince = System.nanoTime();
        while (true) {
            var generation = store.appendGeneration(id); // before the read: an append after it wakes the wait below
            var stillLive = live.contains(id) || store.streaming(id, ctx.clock().instant());
            for (var frame : store.frames(id, last)) {
                last = frame.seq();
                quietSince = System.nanoTime();
                JsonNode data;
                try {
                    data = ctx.json().readTree(frame.json());
                } catch (JsonProcessingException e) {
                    continue; // a corrupt journal row is skipped; replay is best effort
                }
                out.event(null, frame.type(), data);
                if (TERMINAL.contains(frame.type())) return;
            }
            if (!stillLive) break; // read once more after the stream ended, then give up
            if (draining()) return; // its client follows it again on the next process (or another node)
            if (System.nanoTime() - quietSince >= KEEPALIVE.toNanos()) {
                out.comment("keepalive"); // following a live stream through a long tool call
                quietSince = System.nanoTime();
            }
            store.awaitFrames(id, generation, POLL);
        }
        closeSynthetically(id, caller, after, out);
    }

    /**
     * Whether this server is stopping: a stream it follows then ends without a terminal event, as at a kill, so that
     * the server need not wait for it; its client picks it up again after the last event it saw, where the response
     * goes on (the next process, or another node).
     */
    private boolean draining() {
        try {
            ctx.runs().checkReady();
            return false;
        } catch (dev.caduceus.spi.agent.RunRejectedException e) {
            return e.reason() == dev.caduceus.spi.agent.RunRejectedException.Reason.DRAINING;
        }
    }

    /** The terminal event the journal lacks, numbered after its last frame (nothing when that is not after {@code after}). */
    private void closeSynthetically(String id, Caller caller, long after, EventStream out) throws ClientGoneException {
        var envelope = store.find(id, caller).map(StoredResponse::envelope).orElse(null);
        if (envelope == null) return;
        long next = store.lastSeq(id).orElse(-1L) + 1;
        if (next <= after) return;
        var status = envelope.path("status").asText();
        var response = envelope.deepCopy();
        var type = switch (status) {
            case "failed" -> "response.failed";
            case "cancelled" -> "response.cancelled";
            default -> {
                response.put("status", "incomplete");
                yield "response.incomplete";
            }
        };
        ObjectNode frame = Envelope.JSON.objectNode().put("type", type);
        frame.set("response", response);
        frame.put("sequence_number", next);
        out.event(null, type, frame);
    }
}
