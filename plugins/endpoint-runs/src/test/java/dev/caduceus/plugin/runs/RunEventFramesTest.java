package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.platform.testkit.RecordingEventStream;
import java.time.Instant;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** One frame per runs event type, as the host writes it. */
class RunEventFramesTest {
    static final String RUN = "run_4b8f0c00000000000000000000000000";
    static final Instant AT = Instant.parse("2026-01-01T00:00:15.882Z");
    static final String HEAD = "{\"event\":\"%s\",\"run_id\":\"" + RUN + "\",\"timestamp\":1767225615.882,\"seq\":12";

    static final ObjectMapper JSON = new ObjectMapper();

    private String frame(RunEvent event) throws Exception {
        var out = new RecordingEventStream();
        new RunEventFrames(new EncodedFrames(JSON)).translate(new JournalEntry(RUN, 12, AT, event), out);
        assertEquals(1, out.frames().size());
        var frame = out.frames().getFirst();
        assertEquals("event", frame.kind());
        assertEquals(12L, frame.id());
        assertNull(frame.name(), "frames are unnamed: the JSON event field discriminates");
        return JSON.writeValueAsString(frame.data());
    }

    private static String head(String event) {
        return HEAD.formatted(event);
    }

    @Test
    void messageDelta() throws Exception {
        assertEquals(head("message.delta") + ",\"delta\":\"Hel\\nlo\"}", frame(new RunEvent.TextDelta("Hel\nlo")));
    }

    @Test
    void toolStartedWithPreviewOrNull() throws Exception {
        var args = JsonNodeFactory.instance.objectNode().put("command", "ls -la");
        assertEquals(head("tool.started") + ",\"tool\":\"terminal\",\"preview\":\"ls -la\",\"tool_call_id\":\"call_1\"}",
                frame(new RunEvent.ToolCallStarted("call_1", "terminal", args, "ls -la", "💻")));
        assertEquals(head("tool.started") + ",\"tool\":\"terminal\",\"preview\":null,\"tool_call_id\":\"call_1\"}",
                frame(new RunEvent.ToolCallStarted("call_1", "terminal", args, null, null)));
    }

    @Test
    void toolCompletedWithDurationInSecondsAndTheOutputPreviewNotTheOutput() throws Exception {
        assertEquals(head("tool.completed") + ",\"tool\":\"terminal\",\"duration\":1.234,\"error\":false,"
                        + "\"output_preview\":\"total 8 a.txt\",\"tool_call_id\":\"call_1\"}",
                frame(new RunEvent.ToolCallFinished("call_1", "terminal", 1234, false, "total 8\na.txt", "total 8 a.txt")));
        assertEquals(head("tool.completed") + ",\"tool\":\"web_search\",\"duration\":0.007,\"error\":true,"
                        + "\"output_preview\":null,\"tool_call_id\":\"c\"}",
                frame(new RunEvent.ToolCallFinished("c", "web_search", 7, true, "secret output")),
                "no preview (an emitter without one, or a journal row from before): null, and never the output");
    }

    @Test
    void reasoningIsCutAt500Chars() throws Exception {
        var text = "r".repeat(499) + "\uD83D\uDE00" + "tail";
        var json = frame(new RunEvent.ReasoningDelta(text));
        assertEquals(head("reasoning.available") + ",\"text\":\"" + "r".repeat(499) + "\"}", json);
        assertEquals(head("reasoning.available") + ",\"text\":\"short\"}", frame(new RunEvent.ReasoningDelta("short")));
    }

    @Test
    void approvalRequestOffersAlwaysOnlyWhenPermanentIsAllowed() throws Exception {
        assertEquals(head("approval.request") + ",\"command\":\"rm -rf build/\",\"pattern_key\":\"rm-recursive\","
                        + "\"pattern_keys\":[\"rm-recursive\"],\"description\":\"Recursive delete\",\"allow_permanent\":true,"
                        + "\"allow_session\":true,\"request_id\":\"9f0c\",\"choices\":[\"once\",\"session\",\"always\",\"deny\"]}",
                frame(new RunEvent.ApprovalRequested("9f0c", "rm -rf build/", "Recursive delete", 300, "rm-recursive", true)));
        assertEquals(head("approval.request") + ",\"command\":\"curl x | sh\",\"pattern_key\":\"pipe-to-shell\","
                        + "\"pattern_keys\":[\"pipe-to-shell\"],\"description\":\"Pipe to shell\",\"allow_permanent\":false,"
                        + "\"allow_session\":true,\"request_id\":\"a1\",\"choices\":[\"once\",\"session\",\"deny\"]}",
                frame(new RunEvent.ApprovalRequested("a1", "curl x | sh", "Pipe to shell", 300, "pipe-to-shell", false)));
        assertEquals(head("approval.request") + ",\"command\":\"x\",\"pattern_key\":null,\"pattern_keys\":[],"
                        + "\"description\":\"d\",\"allow_permanent\":true,\"allow_session\":true,\"request_id\":\"a2\","
                        + "\"choices\":[\"once\",\"session\",\"always\",\"deny\"]}",
                frame(new RunEvent.ApprovalRequested("a2", "x", "d", 300)));
    }

    @Test
    void approvalResponded() throws Exception {
        assertEquals(head("approval.responded") + ",\"choice\":\"session\",\"resolved\":2,\"timed_out\":false}",
                frame(new RunEvent.ApprovalResolved("a1", "session", "user", 2)));
        assertEquals(head("approval.responded") + ",\"choice\":\"deny\",\"resolved\":1,\"timed_out\":true}",
                frame(new RunEvent.ApprovalResolved("a1", "TIMED_OUT", "timeout")));
        assertEquals(head("approval.responded") + ",\"choice\":\"deny\",\"resolved\":1,\"timed_out\":false}",
                frame(new RunEvent.ApprovalResolved("a1", "DENY", "stop")));
    }

    @Test
    void runSteered() throws Exception {
        assertEquals(head("run.steered") + ",\"accepted\":true}", frame(new RunEvent.Steered("look at tests")));
    }

    @Test
    void runResumedNamesTheNodeTheStepAndTheCount() throws Exception {
        assertEquals(head("run.resumed") + ",\"node\":\"node_0123456789ab\",\"step\":3,\"resumes\":1}",
                frame(new RunEvent.Resumed("node_0123456789ab", 3, 1)));
    }

    @Test
    void runCompletedWithUsageAndOptionalPendingSteer() throws Exception {
        assertEquals(head("run.completed") + ",\"output\":\"Done.\",\"usage\":{\"input_tokens\":50,\"output_tokens\":200,\"total_tokens\":250}}",
                frame(new RunEvent.Completed("Done.", StopReason.STOP, null, new Usage(50, 200, 250))));
        assertEquals(head("run.completed") + ",\"output\":\"Done.\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"total_tokens\":0},"
                        + "\"pending_steer\":\"also the docs\"}",
                frame(new RunEvent.Completed("Done.", StopReason.STOP, null, null, "also the docs")));
    }

    @Test
    void runFailedAndInterrupted() throws Exception {
        assertEquals(head("run.failed") + ",\"error\":\"Upstream model returned 401\"}",
                frame(new RunEvent.Failed("agent_error", "Upstream model returned 401", StopReason.UPSTREAM_ERROR, null, Usage.ZERO)));
        assertEquals(head("run.failed") + ",\"error\":\"agent_error\"}",
                frame(new RunEvent.Failed("agent_error", null, StopReason.EMPTY_RESPONSE, null, null)));
        assertEquals(head("run.failed") + ",\"error\":\"The server restarted before this run settled.\",\"interrupted\":true}",
                frame(new RunEvent.Interrupted("restart")));
    }

    @Test
    void runCancelled() throws Exception {
        assertEquals(head("run.cancelled") + "}", frame(new RunEvent.Cancelled("stopped", "partial", Usage.ZERO)));
    }

    /** Issue 41: every stream of a run sends the frame encoded by the first; another entry is its own frame. */
    @Test
    void aFrameIsEncodedOnceForEveryStreamOfTheRun() throws Exception {
        var frames = new RunEventFrames(new EncodedFrames(JSON));
        var first = new RecordingEventStream();
        var second = new RecordingEventStream();
        var entry = new JournalEntry(RUN, 12, AT, new RunEvent.TextDelta("once"));
        frames.translate(entry, first);
        frames.translate(entry, second);
        assertSame(first.frames().getFirst().data(), second.frames().getFirst().data(), "encoded once, sent twice");
        assertEquals(head("message.delta") + ",\"delta\":\"once\"}", JSON.writeValueAsString(second.frames().getFirst().data()));
        for (int seq = 13; seq < 13 + 2 * EncodedFrames.SLOTS; seq++) // other entries, other runs: slots are taken over
            frames.translate(new JournalEntry(seq % 2 == 0 ? RUN : "run_other", seq, AT, new RunEvent.TextDelta("x" + seq)), first);
        var again = new RecordingEventStream();
        frames.translate(entry, again);
        assertEquals(head("message.delta") + ",\"delta\":\"once\"}", JSON.writeValueAsString(again.frames().getFirst().data()),
                "a frame pushed out of the table is encoded again, the same");
        var other = new RecordingEventStream();
        frames.translate(new JournalEntry("run_other", 12, AT, new RunEvent.TextDelta("theirs")), other);
        assertTrue(JSON.writeValueAsString(other.frames().getFirst().data()).contains("theirs"), "another run's seq 12");
    }

    @Test
    void startedAndUsageHaveNoFrame() throws Exception {
        var out = new RecordingEventStream();
        var frames = new RunEventFrames(new EncodedFrames(JSON));
        frames.translate(new JournalEntry(RUN, 1, AT, new RunEvent.Started("m")), out);
        frames.translate(new JournalEntry(RUN, 2, AT, new RunEvent.UsageReported(Usage.ZERO, Usage.ZERO)), out);
        assertEquals(0, out.frames().size());
    }

    /** With model routes, the journal says which deployment answered a call: {@code model.usage}. */
    @Test
    void usageNamingADeploymentIsAModelUsageFrame() throws Exception {
        var out = new RecordingEventStream();
        var frames = new RunEventFrames(new EncodedFrames(JSON));
        var call = new Usage(1000, 500, 1500, 200, 400);
        frames.translate(new JournalEntry(RUN, 3, AT, new RunEvent.UsageReported(call, call, "fast", "fast/1", 0.009)), out);
        var frame = JSON.readTree(JSON.writeValueAsString(out.frames().getFirst().data()));
        assertEquals("model.usage", frame.path("event").asText(), frame.toString());
        assertEquals("fast", frame.path("route").asText());
        assertEquals("fast/1", frame.path("deployment").asText());
        assertEquals(0.009, frame.path("cost_usd").asDouble());
        assertEquals(1000, frame.at("/usage/input_tokens").asLong(), frame.toString());
    }
}
