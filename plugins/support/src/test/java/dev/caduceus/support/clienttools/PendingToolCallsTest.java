package dev.caduceus.support.clienttools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.message.Message;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server's side of client-tool turns: found by the key that ran them, for a bounded time and number. */
class PendingToolCallsTest {
    private Instant now = Instant.parse("2026-12-04T12:00:00Z");
    private final PendingToolCalls pending = new PendingToolCalls(() -> now, Duration.ofMinutes(30), 3);

    private static Message.ToolCallRef call(String id) {
        return new Message.ToolCallRef(id, "get_weather", JsonNodeFactory.instance.objectNode());
    }

    private static Message calling(String id) {
        return new Message("assistant", List.of(), List.of(call(id)), null, null);
    }

    private static List<Message> history(String id) {
        return List.of(Message.user("q"), calling(id), new Message("tool", List.of(), List.of(), id, null));
    }

    private static List<Message> steps(String id) {
        return List.of(Message.assistant("server step " + id), calling(id));
    }

    @Test
    void aContinuationGetsTheStepsInPlaceOfTheCallsMessage() {
        pending.remember("alice", List.of(call("c1")), steps("c1"));
        var spliced = pending.splice("alice", history("c1"));
        assertEquals(List.of(Message.user("q"), Message.assistant("server step c1"), calling("c1"),
                new Message("tool", List.of(), List.of(), "c1", null)), spliced);
        var unknown = history("c9");
        assertSame(unknown, pending.splice("alice", unknown), "ids never issued: the history as sent");
        assertEquals(history("c1"), pending.splice("bob", history("c1")), "another key's steps stay hidden");
    }

    @Test
    void stepsAreFreedAfterTheirTimeAndTheOldestGoFirst() {
        pending.remember("alice", List.of(call("c1")), steps("c1"));
        now = now.plus(Duration.ofMinutes(20));
        pending.remember("alice", List.of(call("c2")), steps("c2"));
        now = now.plus(Duration.ofMinutes(11));
        assertEquals(1, pending.size(), "c1 is older than 30 minutes");
        assertEquals(history("c1"), pending.splice("alice", history("c1")));
        assertEquals(4, pending.splice("alice", history("c2")).size());
        pending.remember("alice", List.of(call("c3")), steps("c3"));
        pending.remember("alice", List.of(call("c4")), steps("c4"));
        pending.remember("alice", List.of(call("c5")), steps("c5"));
        assertEquals(3, pending.size());
        assertEquals(history("c2"), pending.splice("alice", history("c2")), "the oldest went first at the cap");
        assertEquals(4, pending.splice("alice", history("c5")).size());
    }
}
