package dev.caduceus.plugin.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Turns with an approval channel against a scripted remote runs API: the submission, event mapping,
 * the approval round trip, stop, resume after a broken stream, the fall back to chat completions,
 * and the failure codes.
 */
class RelayRunsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY = RelayRuntimeTest.KEY;

    FakeRemote remote;
    RelayRuntime runtime;

    @BeforeEach
    void start() throws Exception {
        remote = new FakeRemote();
        runtime = runtime(remote.url());
    }

    static RelayRuntime runtime(String url) {
        return new RelayRuntime(new RelaySettings(url, KEY, Duration.ofSeconds(2), Duration.ofSeconds(30), true,
                "hermes-agent", "1.2.3"), JSON, RelayRuntimeTest.OUTBOUND);
    }

    @AfterEach
    void stop() {
        remote.close();
    }

    // ---- scripting helpers -------------------------------------------------------------------

    /** Submitting answers 202 with {@code runId}. */
    void accepts(String runId) {
        remote.route("POST", "/v1/runs", FakeRemote.Script.json(202,
                "{\"run_id\":\"" + runId + "\",\"status\":\"started\",\"replayed\":false}"));
    }

    static String events(String runId) {
        return "/v1/runs/" + runId + "/events";
    }

    /** The lines of one runs-API frame: {@code id}, {@code data} with event, seq and {@code fields}, blank. */
    static List<String> frame(long seq, String event, String fields) {
        var data = "{\"event\":\"" + event + "\",\"run_id\":\"run_remote\",\"timestamp\":1767225615.882,\"seq\":" + seq
                + (fields.isEmpty() ? "" : "," + fields) + "}";
        return List.of("id: " + seq, "data: " + data, "");
    }

    @SafeVarargs
    static FakeRemote.Script stream(List<String>... parts) {
        var lines = new ArrayList<String>();
        for (var part : parts) lines.addAll(part);
        return new FakeRemote.Script(200, "text/event-stream", lines, false, false);
    }

    static List<String> raw(String... lines) {
        return List.of(lines);
    }

    static List<String> delta(long seq, String text) {
        return frame(seq, "message.delta", "\"delta\":" + RelayRuntimeTest.quote(text));
    }

    static List<String> completed(long seq, String output) {
        return frame(seq, "run.completed", "\"output\":" + RelayRuntimeTest.quote(output)
                + ",\"usage\":{\"input_tokens\":10,\"output_tokens\":5,\"total_tokens\":15}");
    }

    static final List<String> CLOSED = List.of(": stream closed", "");

    static RunRequest request() {
        return new RunRequest(null, List.of(Message.user("hi")), "Be brief.", List.of(), "sess-1", "user-42",
                ModelOptions.DEFAULTS, 0, Map.of());
    }

    /** A durable run's context: records events, answers approvals with {@code approver}, can be cancelled. */
    static final class Ctx implements RunContext {
        final List<RunEvent> events = new CopyOnWriteArrayList<>();
        final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
        final RelayRuntimeTest.Cancel cancel = new RelayRuntimeTest.Cancel();
        volatile Consumer<RunEvent> onEvent = e -> { };
        volatile Approver approver = r -> ApprovalChoice.DENY;

        interface Approver {
            ApprovalChoice answer(ApprovalRequest request) throws InterruptedException;
        }

        @Override public String runId() { return "run_front"; }
        @Override public void emit(RunEvent event) { events.add(event); onEvent.accept(event); }
        @Override public Cancellation cancellation() { return cancel; }
        @Override public List<String> drainSteering() { return List.of(); }
        @Override public boolean approvalChannel() { return true; }

        @Override
        public ApprovalChoice requestApproval(ApprovalRequest request) throws InterruptedException {
            asked.add(request);
            return approver.answer(request);
        }

        void cancelSoon() {
            Thread.ofVirtual().start(cancel::cancel);
        }
    }

    static JsonNode body(FakeRemote.Received r) throws Exception {
        return JSON.readTree(r.body());
    }

    // ---- the runs path -----------------------------------------------------------------------

    @Test
    void aTurnWithAnApprovalChannelRunsOnTheRemoteRunsApiAndItsEventsBecomeRunEvents() throws Exception {
        accepts("run_r1");
        remote.route("GET", events("run_r1"), stream(
                delta(1, "Let me look."),
                frame(2, "reasoning.available", "\"text\":\"thinking\""),
                raw(": keepalive", ""),
                frame(3, "tool.started", "\"tool\":\"terminal\",\"preview\":\"ls -la\",\"tool_call_id\":\"call_1\""),
                frame(4, "tool.completed", "\"tool\":\"terminal\",\"duration\":0.25,\"error\":false,\"tool_call_id\":\"call_1\""),
                frame(5, "approval.responded", "\"choice\":\"once\",\"resolved\":1,\"timed_out\":false"),
                frame(6, "some.future.event", "\"x\":1"),
                delta(7, " Done."),
                completed(8, "Let me look. Done."), CLOSED));
        var messages = List.of(new Message("system", List.of(new ContentPart.Text("Extra rule.")), List.of(), null, null),
                Message.user("first"), Message.assistant("answer one"),
                new Message("tool", List.of(new ContentPart.Text("{\"sum\":1}")), List.of(), "call_0", null),
                new Message("user", List.of(new ContentPart.Text("look"), new ContentPart.ImageUrl("https://x/y.png", "low")),
                        List.of(), null, null));
        var ctx = new Ctx();
        var result = runtime.execute(new RunRequest(null, messages, "Be brief.", List.of(), "sess-1", "user-42",
                ModelOptions.DEFAULTS, 0, Map.of()), ctx);

        assertEquals(RunStatus.COMPLETED, result.status(), String.valueOf(result.error()));
        assertEquals(StopReason.STOP, result.stopReason());
        assertEquals("Let me look. Done.", result.output());
        assertEquals(15, result.usage().totalTokens());
        assertEquals(List.of(Message.assistant("Let me look. Done.")), result.messages());

        var e = ctx.events;
        assertEquals(6, e.size(), e.toString());
        assertEquals(new RunEvent.TextDelta("Let me look."), e.get(0));
        assertEquals(new RunEvent.ReasoningDelta("thinking"), e.get(1));
        var started = (RunEvent.ToolCallStarted) e.get(2);
        assertEquals("call_1", started.callId());
        assertEquals("terminal", started.tool());
        assertEquals("ls -la", started.argumentsPreview());
        var finished = (RunEvent.ToolCallFinished) e.get(3);
        assertEquals("call_1", finished.callId());
        assertEquals(250, finished.durationMillis());
        assertFalse(finished.error());
        assertEquals(new RunEvent.TextDelta(" Done."), e.get(4));
        assertEquals(15, ((RunEvent.UsageReported) e.get(5)).total().totalTokens());

        assertEquals(List.of(), remote.requests("POST", "/v1/chat/completions"), "no chat completion");
        var submit = remote.requests("POST", "/v1/runs").getFirst();
        assertEquals("Bearer " + KEY, submit.header("Authorization"));
        assertEquals("user-42", submit.header("X-Hermes-Session-Key"));
        assertEquals("caduceus-relay/1.2.3", submit.header("User-Agent"));
        assertNull(submit.header("X-Hermes-Session-Id"));
        assertTrue(submit.header("Content-Type").startsWith("application/json"));
        var sent = body(submit);
        assertTrue(sent.path("model").isMissingNode(), "no model: the remote's own applies: " + sent);
        assertEquals("Be brief.\nExtra rule.", sent.path("instructions").asText(), "system messages join the instructions");
        assertEquals("sess-1", sent.path("session_id").asText());
        var input = sent.path("input");
        assertEquals(3, input.size(), "user, assistant, user; the tool result stays out: " + input);
        assertEquals("user", input.get(0).path("role").asText());
        assertEquals("first", input.get(0).path("content").asText());
        assertEquals("assistant", input.get(1).path("role").asText());
        assertEquals("answer one", input.get(1).path("content").asText());
        assertEquals("look", input.get(2).path("content").get(0).path("text").asText());
        assertEquals("image_url", input.get(2).path("content").get(1).path("type").asText());
        assertEquals("https://x/y.png", input.get(2).path("content").get(1).path("image_url").path("url").asText());
        assertEquals("low", input.get(2).path("content").get(1).path("image_url").path("detail").asText());

        var tail = remote.requests("GET", events("run_r1"));
        assertEquals(1, tail.size());
        assertEquals("Bearer " + KEY, tail.getFirst().header("Authorization"));
        assertEquals("text/event-stream", tail.getFirst().header("Accept"));
        assertNull(tail.getFirst().header("Last-Event-ID"), "from the first event");
    }

    @Test
    void eachRemoteApprovalRequestIsAskedOnTheFrontAndItsAnswerPostedWithItsRequestId() throws Exception {
        accepts("run_a");
        remote.route("GET", events("run_a"), stream(
                frame(1, "approval.request", "\"command\":\"rm -rf build/\",\"pattern_key\":\"rm-recursive\","
                        + "\"pattern_keys\":[\"rm-recursive\"],\"description\":\"Recursive delete\",\"allow_permanent\":true,"
                        + "\"allow_session\":true,\"request_id\":\"req_a\",\"choices\":[\"once\",\"session\",\"always\",\"deny\"]"),
                frame(2, "approval.request", "\"command\":\"mkfs.ext4 /dev/sdz\",\"pattern_key\":\"disk-write\","
                        + "\"description\":\"Disk write\",\"allow_permanent\":false,\"request_id\":\"req_b\""),
                raw("@await 2 POST /v1/runs/run_a/approval"),
                frame(3, "approval.responded", "\"choice\":\"session\",\"resolved\":1,\"timed_out\":false"),
                frame(4, "approval.responded", "\"choice\":\"deny\",\"resolved\":1,\"timed_out\":false"),
                completed(5, "Cleaned."), CLOSED));
        remote.route("POST", "/v1/runs/run_a/approval", FakeRemote.Script.json(200,
                "{\"object\":\"hermes.run.approval_response\",\"run_id\":\"run_a\",\"choice\":\"once\",\"resolved\":1}"));
        var ctx = new Ctx();
        var bothPending = new CountDownLatch(2);
        ctx.approver = r -> {
            bothPending.countDown();
            if (r.command().startsWith("rm")) {
                // answered only once the second request is pending too: several can wait at once
                return bothPending.await(5, TimeUnit.SECONDS) ? ApprovalChoice.SESSION : ApprovalChoice.DENY;
            }
            return ApprovalChoice.TIMED_OUT;
        };
        var result = runtime.execute(request(), ctx);
        assertEquals(RunStatus.COMPLETED, result.status(), String.valueOf(result.error()));
        assertEquals("Cleaned.", result.output());

        var asked = new HashMap<String, ApprovalRequest>();
        ctx.asked.forEach(r -> asked.put(r.pattern(), r));
        assertEquals(new ApprovalRequest("rm -rf build/", "Recursive delete", "rm-recursive", true), asked.get("rm-recursive"));
        assertEquals(new ApprovalRequest("mkfs.ext4 /dev/sdz", "Disk write", "disk-write", false), asked.get("disk-write"));

        var answers = new HashMap<String, String>();
        for (var post : remote.requests("POST", "/v1/runs/run_a/approval")) {
            assertEquals("Bearer " + KEY, post.header("Authorization"));
            assertEquals("user-42", post.header("X-Hermes-Session-Key"));
            answers.put(body(post).path("request_id").asText(), body(post).path("choice").asText());
        }
        assertEquals(Map.of("req_a", "session", "req_b", "deny"), answers, "a timed-out front approval is a deny");
        assertEquals(List.of(), remote.requests("POST", "/v1/runs/run_a/stop"));
    }

    @Test
    void aFrontStopPostsStopToTheRemoteRunAtOnceAndEndsCancelled() throws Exception {
        accepts("run_s");
        remote.route("GET", events("run_s"), stream(
                delta(1, "Sleeping."),
                frame(2, "tool.started", "\"tool\":\"terminal\",\"preview\":\"sleep 30\",\"tool_call_id\":\"call_s\""),
                raw("@await 1 POST /v1/runs/run_s/stop"),
                frame(3, "run.cancelled", ""), CLOSED));
        remote.route("POST", "/v1/runs/run_s/stop", FakeRemote.Script.json(200, "{\"run_id\":\"run_s\",\"status\":\"stopping\"}"));
        var ctx = new Ctx();
        ctx.onEvent = e -> { if (e instanceof RunEvent.ToolCallStarted) ctx.cancelSoon(); };
        var result = runtime.execute(request(), ctx);
        assertEquals(RunStatus.CANCELLED, result.status());
        assertEquals(StopReason.INTERRUPTED, result.stopReason());
        assertEquals("Sleeping.", result.output());
        var stops = remote.requests("POST", "/v1/runs/run_s/stop");
        assertEquals(1, stops.size(), "the remote had the stop before the turn returned");
        assertEquals("Bearer " + KEY, stops.getFirst().header("Authorization"));
        assertEquals(List.of(), remote.requests("POST", "/v1/runs/run_s/approval"));
    }

    @Test
    void aStopWhileAnApprovalIsPendingStopsTheRemoteRunAndAnswersNothing() throws Exception {
        accepts("run_p");
        remote.route("GET", events("run_p"), stream(
                frame(1, "approval.request", "\"command\":\"rm -rf build/\",\"pattern_key\":\"rm-recursive\","
                        + "\"description\":\"Recursive delete\",\"allow_permanent\":true,\"request_id\":\"req_p\""),
                raw("@await 1 POST /v1/runs/run_p/stop"),
                frame(2, "approval.responded", "\"choice\":\"deny\",\"resolved\":1,\"timed_out\":false"),
                frame(3, "run.cancelled", ""), CLOSED));
        remote.route("POST", "/v1/runs/run_p/stop", FakeRemote.Script.json(200, "{\"run_id\":\"run_p\",\"status\":\"stopping\"}"));
        var ctx = new Ctx();
        var answered = new CountDownLatch(1);
        ctx.approver = r -> {
            // like the host: a stop resolves the pending approval as deny
            var denied = new CountDownLatch(1);
            try (var hook = ctx.cancel.onCancel(denied::countDown)) {
                ctx.cancelSoon();
                denied.await(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                answered.countDown();
            }
            return ApprovalChoice.DENY;
        };
        var result = runtime.execute(request(), ctx);
        assertEquals(RunStatus.CANCELLED, result.status());
        assertEquals(1, remote.requests("POST", "/v1/runs/run_p/stop").size());
        assertTrue(answered.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(), remote.requests("POST", "/v1/runs/run_p/approval"), "the stop denies it on the remote");
    }

    @Test
    void aStopWhileTheSubmissionIsInFlightWaitsForItsRunIdAndStopsThatRun() throws Exception {
        remote.route("POST", "/v1/runs", new FakeRemote.Script(202, "application/json",
                List.of("@sleep 300", "{\"run_id\":\"run_c\",\"status\":\"started\"}"), false, false));
        remote.route("POST", "/v1/runs/run_c/stop", FakeRemote.Script.json(200, "{\"run_id\":\"run_c\",\"status\":\"stopping\"}"));
        var ctx = new Ctx();
        var canceller = Thread.ofVirtual().start(() -> {
            try {
                if (remote.awaitRequests(1, "POST", "/v1/runs", 10_000)) ctx.cancel.cancel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        var result = runtime.execute(request(), ctx);
        canceller.join();
        assertEquals(RunStatus.CANCELLED, result.status());
        assertEquals(1, remote.requests("POST", "/v1/runs/run_c/stop").size(), "the run the submission started is stopped");
    }

    @Test
    @Timeout(60) // a safety net only: without the bound the submission would wait out the 300 s read timeout
    void aStopWhileTheSubmissionGetsNoAnswerEndsCancelledAfterTheControlTimeout() throws Exception {
        runtime = new RelayRuntime(new RelaySettings(remote.url(), KEY, Duration.ofSeconds(2), Duration.ofSeconds(300), true,
                "hermes-agent", "1.2.3"), JSON, RelayRuntimeTest.OUTBOUND);
        remote.route("POST", "/v1/runs", new FakeRemote.Script(202, "application/json", List.of("@stall"), false, false));
        var ctx = new Ctx();
        var canceller = Thread.ofVirtual().start(() -> {
            try {
                if (remote.awaitRequests(1, "POST", "/v1/runs", 10_000)) ctx.cancel.cancel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        var result = runtime.execute(request(), ctx);
        canceller.join();
        assertEquals(RunStatus.CANCELLED, result.status());
        assertEquals(1, remote.received.size(), "no run id: nothing to follow or stop");
    }

    @Test
    void aBrokenEventStreamIsResumedWithLastEventIdAndNothingRepeats() throws Exception {
        accepts("run_b");
        remote.route("GET", events("run_b"),
                stream(delta(1, "so "), delta(2, "far")), // cut: no terminal event
                stream(delta(2, "far"), delta(3, " and on"), completed(4, "so far and on"), CLOSED));
        var ctx = new Ctx();
        var result = runtime.execute(request(), ctx);
        assertEquals(RunStatus.COMPLETED, result.status(), String.valueOf(result.error()));
        assertEquals("so far and on", result.output());
        var texts = ctx.events.stream().filter(e -> e instanceof RunEvent.TextDelta).map(e -> ((RunEvent.TextDelta) e).text()).toList();
        assertEquals(List.of("so ", "far", " and on"), texts, "the repeated frame 2 is skipped");
        var tails = remote.requests("GET", events("run_b"));
        assertEquals(2, tails.size());
        assertNull(tails.get(0).header("Last-Event-ID"));
        assertEquals("2", tails.get(1).header("Last-Event-ID"));
    }

    @Test
    void aStreamThatKeepsBreakingWithoutProgressFailsAsProxyErrorKeepingTheText() throws Exception {
        accepts("run_k");
        remote.route("GET", events("run_k"), stream(delta(1, "partial")), stream());
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertEquals("partial", result.output());
        assertEquals(RunsTurn.MAX_RESUMES + 1, remote.requests("GET", events("run_k")).size(), result.error());
        assertEquals(1, remote.requests("POST", "/v1/runs/run_k/stop").size(), "the run the front gave up on is stopped");
    }

    @Test
    void aRemoteWithoutRunsApiIsProbedOnceAndTurnsGoTheChatWay() throws Exception {
        remote.route("POST", "/v1/runs", FakeRemote.Script.error(404,
                "{\"error\":{\"message\":\"Unknown route: POST /v1/runs\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"not_found\"}}"));
        remote.answer(FakeRemote.Script.sse(RelayRuntimeTest.text("via chat"), "", RelayRuntimeTest.FINISH, "", "data: [DONE]", ""));
        for (int i = 0; i < 2; i++) {
            var result = runtime.execute(request(), new Ctx());
            assertEquals(RunStatus.COMPLETED, result.status(), String.valueOf(result.error()));
            assertEquals("via chat", result.output());
        }
        assertEquals(1, remote.requests("POST", "/v1/runs").size(), "probed once");
        assertEquals(2, remote.requests("POST", "/v1/chat/completions").size());

        var other = runtime(remote.url());
        remote.route("POST", "/v1/runs", FakeRemote.Script.error(405, "Method Not Allowed"));
        assertEquals("via chat", other.execute(request(), new Ctx()).output());
    }

    @Test
    void aTurnWithoutApprovalChannelStaysOnChatCompletions() throws Exception {
        accepts("run_never");
        remote.answer(FakeRemote.Script.sse(RelayRuntimeTest.text("chat"), "", RelayRuntimeTest.FINISH, "", "data: [DONE]", ""));
        var result = runtime.execute(request(), new RelayRuntimeTest.Ctx());
        assertEquals("chat", result.output());
        assertEquals(List.of(), remote.requests("POST", "/v1/runs"));
    }

    // ---- failures ----------------------------------------------------------------------------

    @Test
    void aRefusedSubmissionIsProxyAuthFailedOrProxyErrorAndNeverFallsBack() throws Exception {
        remote.route("POST", "/v1/runs", FakeRemote.Script.error(401,
                "{\"error\":{\"message\":\"Invalid API key " + KEY + "\",\"code\":\"invalid_api_key\"}}"));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_auth_failed", result.errorCode());
        assertTrue(result.error().contains("401"), result.error());
        assertFalse(result.error().contains(KEY), result.error());

        remote.route("POST", "/v1/runs", FakeRemote.Script.error(503, "{\"error\":{\"message\":\"Gateway is draining\"}}"));
        result = runtime.execute(request(), new Ctx());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("503") && result.error().contains("Gateway is draining"), result.error());

        remote.route("POST", "/v1/runs", FakeRemote.Script.json(202, "{\"status\":\"started\"}"));
        assertEquals("proxy_error", runtime.execute(request(), new Ctx()).errorCode(), "no run_id");
        assertEquals(List.of(), remote.requests("POST", "/v1/chat/completions"));
    }

    @Test
    void aMalformedEventFailsAsProxyErrorKeepingTheTextSoFar() throws Exception {
        accepts("run_m");
        remote.route("GET", events("run_m"), stream(delta(1, "half"), raw("id: 2", "data: {not json", "")));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("malformed"), result.error());
        assertEquals("half", result.output());
        assertEquals(1, remote.requests("POST", "/v1/runs/run_m/stop").size(), "the run the front gave up on is stopped");
    }

    @Test
    void anEventStreamThatStallsHitsTheReadTimeoutAndStopsTheRemoteRun() throws Exception {
        runtime = new RelayRuntime(new RelaySettings(remote.url(), KEY, Duration.ofSeconds(2), Duration.ofSeconds(1), true,
                "hermes-agent", "1.2.3"), JSON, RelayRuntimeTest.OUTBOUND);
        accepts("run_t");
        remote.route("GET", events("run_t"), stream(delta(1, "half"), raw("@stall")));
        remote.route("POST", "/v1/runs/run_t/stop", FakeRemote.Script.json(200, "{\"run_id\":\"run_t\",\"status\":\"stopping\"}"));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_timeout", result.errorCode());
        assertEquals("The remote agent server sent nothing for 1 s", result.error());
        assertEquals("half", result.output());
        assertEquals(1, remote.requests("GET", events("run_t")).size(), "a silent remote is not resumed");
        assertEquals(1, remote.requests("POST", "/v1/runs/run_t/stop").size(), "the run the front gave up on is stopped");
    }

    @Test
    void anEventLineOverOneMebibyteFailsAsProxyErrorAndStopsTheRemoteRun() throws Exception {
        accepts("run_l");
        remote.route("GET", events("run_l"), stream(delta(1, "half"),
                raw("id: 2", "data: {\"event\":\"message.delta\",\"delta\":\"" + "x".repeat(1 << 20) + "\"}", ""),
                completed(3, "never read"), CLOSED));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("malformed") && result.error().contains("longer than 1048576 bytes"), result.error());
        assertEquals("half", result.output());
        assertEquals(1, remote.requests("GET", events("run_l")).size(), "the same line would come again: not resumed");
        assertEquals(1, remote.requests("POST", "/v1/runs/run_l/stop").size());
    }

    @Test
    void aRedirectedSubmissionIsAnErrorNamingTheStatusAndLocationAndNeverFallsBack() throws Exception {
        remote.route("POST", "/v1/runs", FakeRemote.Script.redirect(308, "https://moved.example/v1/runs"));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("308") && result.error().contains("https://moved.example/v1/runs"), result.error());
        assertEquals(1, remote.requests("POST", "/v1/runs").size());
        assertEquals(List.of(), remote.requests("POST", "/v1/chat/completions"));
    }

    @Test
    void aRedirectedEventStreamIsAnErrorNamingTheStatusAndLocationAndIsNotFollowed() throws Exception {
        accepts("run_d");
        remote.route("GET", events("run_d"), FakeRemote.Script.redirect(302, remote.url() + "/elsewhere"));
        var result = runtime.execute(request(), new Ctx());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("302") && result.error().contains(remote.url() + "/elsewhere"), result.error());
        assertEquals(List.of(), remote.requests("GET", "/elsewhere"));
        assertEquals(1, remote.requests("POST", "/v1/runs/run_d/stop").size(), "the run the front gave up on is stopped");
    }

    @Test
    void theRemoteRunFailingFailsTheTurnWithItsMessage() throws Exception {
        accepts("run_f");
        remote.route("GET", events("run_f"), stream(delta(1, "part"),
                frame(2, "run.failed", "\"error\":\"upstream model exploded " + KEY + "\""), CLOSED));
        var result = runtime.execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("agent_error", result.errorCode());
        assertEquals("upstream model exploded ***", result.error());
        assertEquals("part", result.output());
        assertEquals(List.of(), remote.requests("POST", "/v1/runs/run_f/stop"), "an ended remote run needs no stop");
    }

    @Test
    void aVanishedOrForbiddenRemoteRunFailsTheTurn() throws Exception {
        accepts("run_v");
        remote.route("GET", events("run_v"), FakeRemote.Script.error(404, "{\"error\":{\"message\":\"Run not found: run_v\"}}"));
        var result = runtime.execute(request(), new Ctx());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("404") && result.error().contains("Run not found"), result.error());

        remote.route("GET", events("run_v"), FakeRemote.Script.error(401, "{\"error\":{\"message\":\"Invalid API key\"}}"));
        assertEquals("proxy_auth_failed", runtime.execute(request(), new Ctx()).errorCode());
    }

    @Test
    void anUnreachableRemoteIsProxyUnreachable() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        var result = runtime("http://127.0.0.1:" + port).execute(request(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_unreachable", result.errorCode());
    }
}
