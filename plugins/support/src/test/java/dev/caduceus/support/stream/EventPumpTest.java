package dev.caduceus.support.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The pump on a ticker the test moves: keepalives exactly when nothing was written for the interval,
 * entries at hand written in one batch, and the two ways it ends. No real time passes.
 */
class EventPumpTest {
    private static final Duration KEEPALIVE = Duration.ofSeconds(30);
    private final AtomicLong now = new AtomicLong();
    private final List<String> writes = new ArrayList<>();

    /** A subscription scripted as a list of steps: an entry, or "idle for this long". */
    private final class Script implements RunSubscription {
        private final ArrayDeque<Object> steps = new ArrayDeque<>();
        private long seq;
        private boolean finished;

        Script idle(Duration d) { steps.add(d); return this; }
        Script text(String t) { steps.add(new RunEvent.TextDelta(t)); return this; }
        Script end() { steps.add(new RunEvent.Interrupted("shutdown")); return this; }

        @Override public String runId() { return "run_1"; }

        @Override
        public Optional<JournalEntry> next(Duration timeout) {
            var step = steps.peek();
            if (step == null) { finished = true; return Optional.empty(); }
            if (step instanceof Duration idle) {
                if (timeout.isZero()) return Optional.empty(); // nothing at hand
                var waited = idle.compareTo(timeout) < 0 ? idle : timeout;
                now.addAndGet(waited.toNanos());
                steps.poll();
                if (!waited.equals(idle)) steps.addFirst(idle.minus(waited));
                return Optional.empty();
            }
            steps.poll();
            var event = (RunEvent) step;
            if (event.isTerminal()) finished = true;
            return Optional.of(new JournalEntry("run_1", ++seq, Instant.EPOCH, event));
        }

        @Override public boolean finished() { return finished; }

        @Override public void close() {}
    }

    /** Records each write; batch() groups what its frames wrote into one write. */
    private final class Recording implements EventStream {
        private StringBuilder batch;
        private boolean gone;

        Recording goneAfter() { gone = true; return this; }

        private void write(String frame) throws ClientGoneException {
            if (batch != null) { batch.append(frame); return; }
            if (gone && !writes.isEmpty()) throw new ClientGoneException("gone", null);
            writes.add(frame + " @" + Duration.ofNanos(now.get()).toSeconds() + "s");
        }

        @Override public void event(Long id, String name, JsonNode data) throws ClientGoneException { write("event " + id); }
        @Override public void data(String raw) throws ClientGoneException { write("data " + raw); }
        @Override public void comment(String text) throws ClientGoneException { write(": " + text); }

        @Override
        public void batch(Frames frames) throws ClientGoneException, InterruptedException {
            batch = new StringBuilder();
            try {
                frames.write();
            } finally {
                var all = batch.toString();
                batch = null;
                if (!all.isEmpty()) write(all);
            }
        }

        @Override public void close() {}
    }

    private static void frames(JournalEntry entry, EventStream out) throws ClientGoneException {
        if (entry.event() instanceof RunEvent.TextDelta) out.event(entry.seq(), null, JsonNodeFactory.instance.objectNode());
        else out.data("[DONE]");
    }

    @Test
    void aKeepaliveGoesOutOnlyAfterTheIntervalWithoutAWrite() throws Exception {
        var script = new Script().text("a").idle(Duration.ofSeconds(20)).text("b").idle(Duration.ofSeconds(45)).end();
        var result = new EventPump(KEEPALIVE, now::get).pump(script, EventPumpTest::frames, new Recording());
        assertEquals(EventPump.Result.FINISHED, result);
        // b at 20 s resets the interval: the keepalive is due at 50 s, not 30 s; the end comes at 65 s
        assertEquals(List.of("event 1 @0s", "event 2 @20s", ": keepalive @50s", "data [DONE] @65s"), writes);
    }

    @Test
    void entriesAtHandGoOutInOneWrite() throws Exception {
        var script = new Script().text("a").text("b").text("c").idle(Duration.ofSeconds(1)).text("d").end();
        new EventPump(KEEPALIVE, now::get).pump(script, EventPumpTest::frames, new Recording());
        assertEquals(List.of("event 1event 2event 3 @0s", "event 4data [DONE] @1s"), writes);
    }

    @Test
    void aClientThatLeavesEndsThePump() throws Exception {
        var script = new Script().text("a").idle(Duration.ofSeconds(31)).text("b").end();
        var result = new EventPump(KEEPALIVE, now::get).pump(script, EventPumpTest::frames, new Recording().goneAfter());
        assertEquals(EventPump.Result.CLIENT_GONE, result);
        assertEquals(List.of("event 1 @0s"), writes);
    }
}
