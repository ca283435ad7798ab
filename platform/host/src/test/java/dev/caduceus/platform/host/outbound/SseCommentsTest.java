package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp.Event;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The SSE reader's comment consumer: comments reach it in stream order relative to the events (the
 * relay reads Hermes' {@code : hermes.tool.progress {...}} lines this way), and what it throws ends
 * the read.
 */
class SseCommentsTest {
    private static SseEvents reader(String stream, List<String> seen) {
        return new SseEvents(new ByteArrayInputStream(stream.getBytes(UTF_8)), 1 << 20, "http://remote/v1/x",
                comment -> seen.add("comment " + comment));
    }

    @Test
    void commentsArriveInStreamOrderBetweenEvents() throws Exception {
        var seen = new ArrayList<String>();
        var events = reader("data: one\n\n: first {\"a\":1}\r\n:second\n\nevent: x\n: inside\ndata: two\n\n:last\n", seen);
        for (Optional<Event> e; (e = events.next()).isPresent(); ) seen.add("event " + e.get().event() + " " + e.get().data());
        assertEquals(List.of("event message one", "comment first {\"a\":1}", "comment second", "comment inside",
                "event x two", "comment last"), seen);
    }

    @Test
    void withoutAConsumerCommentsAreSkipped() throws Exception {
        var events = new SseEvents(new ByteArrayInputStream(": c\ndata: a\n\n".getBytes(UTF_8)), 1 << 20, "t");
        assertEquals("a", events.next().orElseThrow().data());
        assertTrue(events.next().isEmpty());
    }

    @Test
    void whatTheConsumerThrowsEndsTheRead() {
        var events = new SseEvents(new ByteArrayInputStream(": bad\ndata: a\n\n".getBytes(UTF_8)), 1 << 20, "t",
                comment -> { throw new IllegalStateException(comment); });
        assertEquals("bad", assertThrows(IllegalStateException.class, events::next).getMessage());
    }
}
