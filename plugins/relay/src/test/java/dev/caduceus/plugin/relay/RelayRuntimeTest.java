package dev.caduceus.plugin.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay runtime against a scripted remote: request shape, event mapping, failure codes, cancellation. */
class RelayRuntimeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY = "sk-remote-secret-key-123";
    /**
     * The host's real outbound client, the class a plugin's {@code ctx.outbound()} is, built as the host
     * builds it for a deployment without proxies: a value the runtime is constructed with, not a fake
     * (one per test JVM, daemon threads, never closed).
     */
    static final OutboundHttp OUTBOUND = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    static final String CHUNK = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}],\"usage\":%s}";

    FakeRemote remote;
    RelayRuntime runtime;

    @BeforeEach
    void start() throws Exception {
        remote = new FakeRemote();
        runtime = runtime(Duration.ofSeconds(30), true, KEY);
    }

    RelayRuntime runtime(Duration read, boolean progress, String key) {
        return new RelayRuntime(new RelaySettings(remote.url() + "/", key, Duration.ofSeconds(2), read, progress,
                "hermes-agent", "1.2.3"), JSON, OUTBOUND);
    }

    @AfterEach
    void stop() {
        remote.close();
    }

    static String chunk(String delta, String finish, String usage) {
        return CHUNK.formatted(delta, finish, usage);
    }

    static String text(String t) {
        return chunk("{\"content\":" + quote(t) + "}", "null", "null");
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static final String FINISH = chunk("{}", "\"stop\"", "{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}");
    static final String USAGE = "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}";

    static RunRequest request(String sessionKey, List<Message> messages) {
        return new RunRequest(null, messages, "Be brief.", List.of(), "sess-1", sessionKey,
                ModelOptions.DEFAULTS, 0, Map.of());
    }

    static RunRequest simple() {
        return request(null, List.of(Message.user("hi")));
    }

    /** A run context that records events and can be cancelled. */
    static final class Ctx implements RunContext {
        final List<RunEvent> events = new CopyOnWriteArrayList<>();
        final Cancel cancel = new Cancel();

        @Override public String runId() { return "run_test"; }
        @Override public void emit(RunEvent event) { events.add(event); }
        @Override public Cancellation cancellation() { return cancel; }
        @Override public List<String> drainSteering() { return List.of(); }
    }

    static final class Cancel implements Cancellation {
        private final List<Runnable> callbacks = new ArrayList<>();
        private boolean cancelled;

        @Override public synchronized boolean isCancelled() { return cancelled; }

        @Override public AutoCloseable onCancel(Runnable callback) {
            synchronized (this) {
                if (!cancelled) {
                    callbacks.add(callback);
                    return () -> { synchronized (this) { callbacks.remove(callback); } };
                }
            }
            callback.run();
            return () -> { };
        }

        void cancel() {
            List<Runnable> run;
            synchronized (this) {
                cancelled = true;
                run = List.copyOf(callbacks);
            }
            run.forEach(Runnable::run);
        }
    }

    @Test
    void sendsTheWholeHistoryWithTheRightHeadersAndNoSessionId() throws Exception {
        remote.answer(FakeRemote.Script.sse(text("ok"), "", FINISH, "", USAGE, "", "data: [DONE]", ""));
        var messages = List.of(Message.user("first"), Message.assistant("answer one"),
                new Message("user", List.of(new ContentPart.Text("look"), new ContentPart.ImageUrl("https://x/y.png", "low")),
                        List.of(), null, null));
        var result = runtime.execute(request("user-42", messages), new Ctx());
        assertEquals(RunStatus.COMPLETED, result.status(), String.valueOf(result.error()));

        var sent = remote.received.getLast();
        assertEquals("POST", sent.method());
        assertEquals("/v1/chat/completions", sent.path(), "trailing slash of proxy_url dropped");
        assertEquals("Bearer " + KEY, sent.header("Authorization"));
        assertEquals("true", sent.header("X-Hermes-Tool-Progress"));
        assertEquals("user-42", sent.header("X-Hermes-Session-Key"));
        assertNull(sent.header("X-Hermes-Session-Id"), "never the session id: the remote would replace the history");
        assertEquals("text/event-stream", sent.header("Accept"));
        assertEquals("caduceus-relay/1.2.3", sent.header("User-Agent"));
        assertTrue(sent.header("Content-Type").startsWith("application/json"));

        var body = JSON.readTree(sent.body());
        assertEquals("hermes-agent", body.path("model").asText());
        assertTrue(body.path("stream").asBoolean());
        assertTrue(body.path("stream_options").path("include_usage").asBoolean());
        var m = body.path("messages");
        assertEquals(4, m.size());
        assertEquals("system", m.get(0).path("role").asText());
        assertEquals("Be brief.", m.get(0).path("content").asText());
        assertEquals("first", m.get(1).path("content").asText());
        assertEquals("assistant", m.get(2).path("role").asText());
        assertEquals("image_url", m.get(3).path("content").get(1).path("type").asText());
        assertEquals("https://x/y.png", m.get(3).path("content").get(1).path("image_url").path("url").asText());
    }

    @Test
    void optionalHeadersAreLeftOutWhenNotConfigured() throws Exception {
        runtime = runtime(Duration.ofSeconds(30), false, null);
        remote.answer(FakeRemote.Script.sse(text("ok"), "", FINISH, "", "data: [DONE]", ""));
        runtime.execute(new RunRequest(null, List.of(Message.user("hi")), null, List.of(), null, null,
                ModelOptions.DEFAULTS, 0, Map.of()), new Ctx());
        var sent = remote.received.getLast();
        assertNull(sent.header("Authorization"));
        assertNull(sent.header("X-Hermes-Tool-Progress"));
        assertNull(sent.header("X-Hermes-Session-Key"));
        var m = JSON.readTree(sent.body()).path("messages");
        assertEquals(1, m.size(), "no system message without instructions");
    }

    @Test
    void framesBecomeRunEventsInOrder() throws Exception {
        remote.answer(FakeRemote.Script.sse(
                chunk("{\"role\":\"assistant\"}", "null", "null"), "",
                text("Let me look."), "",
                chunk("{\"reasoning_content\":\"thinking\"}", "null", "null"), "",
                "event: hermes.tool.progress",
                "data: {\"tool\":\"terminal\",\"emoji\":\"💻\",\"label\":\"terminal: ls -la\",\"toolCallId\":\"call_1\",\"status\":\"running\"}", "",
                "event: hermes.tool.progress",
                "data: {\"tool\":\"terminal\",\"toolCallId\":\"call_1\",\"status\":\"completed\"}", "",
                ": hermes.tool.progress {\"tool\":\"add\",\"label\":\"add\",\"toolCallId\":\"call_2\",\"status\":\"running\"}",
                ": hermes.tool.progress {\"tool\":\"add\",\"toolCallId\":\"call_2\",\"status\":\"completed\"}",
                ": keepalive", "",
                text(" Three files."), "", FINISH, "", USAGE, "", "data: [DONE]", ""));
        var ctx = new Ctx();
        var result = runtime.execute(simple(), ctx);
        assertEquals(RunStatus.COMPLETED, result.status());
        assertEquals(StopReason.STOP, result.stopReason());
        assertEquals("Let me look. Three files.", result.output());
        assertEquals(15, result.usage().totalTokens());
        assertEquals(List.of(Message.assistant("Let me look. Three files.")), result.messages());

        var e = ctx.events;
        assertEquals(8, e.size(), e.toString());
        assertEquals(new RunEvent.TextDelta("Let me look."), e.get(0));
        assertEquals(new RunEvent.ReasoningDelta("thinking"), e.get(1));
        var started = (RunEvent.ToolCallStarted) e.get(2);
        assertEquals("call_1", started.callId());
        assertEquals("terminal", started.tool());
        assertEquals("ls -la", started.argumentsPreview());
        assertEquals("💻", started.emoji());
        var finished = (RunEvent.ToolCallFinished) e.get(3);
        assertEquals("call_1", finished.callId());
        assertFalse(finished.error());
        assertNull(((RunEvent.ToolCallStarted) e.get(4)).argumentsPreview());
        assertTrue(e.get(5) instanceof RunEvent.ToolCallFinished);
        assertEquals(new RunEvent.TextDelta(" Three files."), e.get(6));
        var usage = (RunEvent.UsageReported) e.get(7);
        assertEquals(15, usage.total().totalTokens(), "reported once although the usage chunk repeats it");
    }

    @Test
    void aRemoteAgentErrorFailsTheRunWithItsMessage() throws Exception {
        remote.answer(FakeRemote.Script.sse(text("partial"), "",
                "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"error\"}],\"error\":{\"message\":\"upstream model exploded\",\"type\":\"agent_error\"}}",
                "", "data: [DONE]", ""));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("agent_error", result.errorCode());
        assertEquals("upstream model exploded", result.error());
        assertEquals("partial", result.output());
    }

    @Test
    void remote401IsProxyAuthFailedAndNeverLeaksTheKey() throws Exception {
        remote.answer(FakeRemote.Script.error(401, "{\"error\":{\"message\":\"Invalid API key " + KEY + "\",\"code\":\"invalid_api_key\"}}"));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_auth_failed", result.errorCode());
        assertTrue(result.error().contains("401"), result.error());
        assertFalse(result.error().contains(KEY), result.error());
        assertEquals("proxy_auth_failed", runtime.execute(simple(), new Ctx()).errorCode());
        remote.answer(FakeRemote.Script.error(403, "forbidden"));
        assertEquals("proxy_auth_failed", runtime.execute(simple(), new Ctx()).errorCode());
    }

    @Test
    void remote5xxAnd429AreProxyErrorsWithStatusAndTheFirst300Characters() throws Exception {
        remote.answer(FakeRemote.Script.error(500, "{\"error\":{\"message\":\"" + "x".repeat(500) + "\"}}"));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("500"));
        assertTrue(result.error().endsWith("x".repeat(300)) && !result.error().contains("x".repeat(301)), result.error());
        remote.answer(FakeRemote.Script.error(429, "{\"error\":{\"message\":\"Too many concurrent runs\"}}"));
        result = runtime.execute(simple(), new Ctx());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("429") && result.error().contains("Too many concurrent runs"), result.error());
    }

    @Test
    void aMalformedStreamFailsKeepingTheTextSoFar() throws Exception {
        remote.answer(FakeRemote.Script.sse(text("half"), "", "data: {not json", ""));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("malformed"), result.error());
        assertEquals("half", result.output());
    }

    @Test
    void aStreamCutMidwayFailsKeepingTheTextSoFar() throws Exception {
        remote.answer(FakeRemote.Script.sse(text("so far"), ""));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertEquals("so far", result.output());
    }

    @Test
    void anUnreachableRemoteIsProxyUnreachable() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        var dead = new RelayRuntime(new RelaySettings("http://127.0.0.1:" + port, KEY, Duration.ofSeconds(2),
                Duration.ofSeconds(5), true, "hermes-agent", "1"), JSON, OUTBOUND);
        var result = dead.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_unreachable", result.errorCode());
        assertEquals("The remote agent server http://127.0.0.1:" + port + " is unreachable (ConnectException)", result.error());
    }

    @Test
    void aSilentRemoteIsProxyTimeout() throws Exception {
        runtime = runtime(Duration.ofMillis(400), true, KEY);
        remote.answer(FakeRemote.Script.silent());
        var result = runtime.execute(simple(), new Ctx()); // the remote never answers: only the timeout ends the turn
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_timeout", result.errorCode());
    }

    @Test
    void aRemoteThatStallsMidStreamHitsTheReadTimeoutKeepingTheTextSoFar() throws Exception {
        runtime = runtime(Duration.ofSeconds(1), true, KEY);
        remote.answer(FakeRemote.Script.sse(text("so far"), "", "@stall")); // the connection stays open, silent
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_timeout", result.errorCode());
        assertEquals("The remote agent server sent nothing for 1 s", result.error());
        assertEquals("so far", result.output());
    }

    @Test
    void anEventLineOverOneMebibyteEndsTheTurnWithAClearError() throws Exception {
        remote.answer(FakeRemote.Script.sse(text("ok"), "", "data: {\"pad\":\"" + "x".repeat(1 << 20) + "\"}", "",
                FINISH, "", "data: [DONE]", ""));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().startsWith("The remote agent server sent a malformed stream: ")
                && result.error().contains("longer than 1048576 bytes"), result.error());
        assertEquals("ok", result.output());
    }

    @Test
    void aRedirectIsAnErrorNamingTheStatusAndLocationAndIsNotFollowed() throws Exception {
        remote.answer(FakeRemote.Script.redirect(307, "https://moved.example/v1/chat/completions"));
        var result = runtime.execute(simple(), new Ctx());
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals("proxy_error", result.errorCode());
        assertTrue(result.error().contains("307") && result.error().contains("https://moved.example/v1/chat/completions"),
                result.error());
        assertEquals(1, remote.received.size(), "the POST is sent once, never to the new address");
    }

    @Test
    void cancellationClosesTheRemoteRequestAtOnce() throws Exception {
        remote.answer(FakeRemote.Script.busy());
        var ctx = new Ctx();
        var canceller = Thread.ofVirtual().start(() -> {
            try {
                if (remote.awaitAnyRequest(10_000)) ctx.cancel.cancel(); // the remote call is in flight
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            RunResult result = runtime.execute(simple(), ctx); // the remote stays busy: only the cancel ends the turn
            assertEquals(RunStatus.CANCELLED, result.status());
            assertEquals(StopReason.INTERRUPTED, result.stopReason());
            assertTrue(remote.awaitClientGone(5_000), "the remote saw its client go away");
        } finally {
            canceller.interrupt();
        }
    }

    @Test
    void withoutAProxyUrlEveryTurnFailsAsUnreachable() throws Exception {
        var none = new RelayRuntime(new RelaySettings(null, null, Duration.ofSeconds(1), Duration.ofSeconds(1), true,
                "hermes-agent", "1"), JSON, OUTBOUND);
        assertEquals("proxy_unreachable", none.execute(simple(), new Ctx()).errorCode());
    }
}
