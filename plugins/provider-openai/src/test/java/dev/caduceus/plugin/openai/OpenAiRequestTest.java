package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.RecordedRequest;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the provider sends upstream, the stream_options fallback, cancellation, the timeouts, and the
 * plugin entry, all on the real host ({@link TestHost} with this plugin's jar): the {@code model.*}
 * settings come from the host's configuration (the environment, or {@code config.yaml}), the calls go
 * through the host's model calls ({@link TestHost#models()}, what a plugin's {@code ctx.models()} is) to
 * the provider the plugin contributed, and what it sent is read at the {@link ScriptedUpstream}. One
 * host on the default settings serves the tests that do not change the provider; a test that needs
 * other settings, or leaves the provider remembering something, boots its own.
 */
class OpenAiRequestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ScriptedUpstream upstream;
    /** {@code model.base_url} the upstream, {@code model.name} its model, nothing else set. */
    private static TestHost host;
    private int seen;

    @BeforeAll
    static void boot() {
        upstream = ScriptedUpstream.start();
        host = TestHost.builder().plugins("provider-openai").model(upstream).start();
    }

    @AfterAll
    static void shutDown() {
        if (host != null) host.close();
        upstream.close();
    }

    @BeforeEach
    void reset() {
        upstream.clearQueue();
        seen = upstream.chatRequests().size();
    }

    /** The chat requests the upstream received during this test. */
    private List<RecordedRequest> sent() {
        var all = upstream.chatRequests();
        return all.subList(seen, all.size());
    }

    @Test
    void sendsTheRequestBodyOfToolsSection23() throws Exception {
        var options = new ModelOptions(0.2, null, "high", (ObjectNode) JSON.readTree("{\"service_tier\":\"flex\"}"));
        var messages = List.of(Message.system("be brief"),
                new Message("user", List.of(new ContentPart.Text("what is this?"),
                        new ContentPart.ImageUrl("https://x/img.png", "low")), List.of(), null, null),
                new Message("assistant", List.of(), List.of(new Message.ToolCallRef("call_1", "read_file",
                        (ObjectNode) JSON.readTree("{\"path\":\"a.txt\"}"))), null, null),
                new Message("tool", List.of(new ContentPart.Text("{\"content\": \"x\"}")), List.of(), "call_1",
                        "read_file"));
        var request = new ModelRequest("", messages, List.of(tool("web_search"), tool("read_file")), options, true);
        upstream.enqueue(Turn.text("ok"));
        try (var configured = TestHost.builder().plugins("provider-openai").configYaml("""
                model:
                  base_url: %s
                  api_key: sk-key
                  name: default-model
                  max_tokens: 256
                  extra_body:
                    top_k: 5
                  health_probe: false
                """.formatted(upstream.baseUrl())).start()) {
            Fixtures.run(configured.models(), request);
        }
        var recorded = sent().getFirst();
        var expected = JSON.readTree("""
                {"model":"default-model","messages":[
                  {"role":"system","content":"be brief"},
                  {"role":"user","content":[{"type":"text","text":"what is this?"},
                     {"type":"image_url","image_url":{"url":"https://x/img.png","detail":"low"}}]},
                  {"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function",
                     "function":{"name":"read_file","arguments":"{\\"path\\":\\"a.txt\\"}"}}]},
                  {"role":"tool","content":"{\\"content\\": \\"x\\"}","tool_call_id":"call_1"}],
                 "tools":[
                  {"type":"function","function":{"name":"read_file","description":"d read_file","parameters":{"type":"object"}}},
                  {"type":"function","function":{"name":"web_search","description":"d web_search","parameters":{"type":"object"}}}],
                 "tool_choice":"auto","stream":true,"stream_options":{"include_usage":true},"max_tokens":256,
                 "temperature":0.2,"reasoning_effort":"high","top_k":5,"service_tier":"flex"}
                """);
        assertEquals(expected, recorded.body());
        assertEquals("Bearer sk-key", recorded.header("authorization"));
        assertEquals("application/json", recorded.header("content-type"));
    }

    @Test
    void omitsToolsAuthorizationAndMaxTokensWhenNotSet() throws Exception {
        upstream.enqueue(Turn.text("ok"));
        Fixtures.run(host.models(), Fixtures.request(true));
        var recorded = sent().getFirst();
        assertNull(recorded.header("authorization"));
        for (var absent : List.of("tools", "tool_choice", "max_tokens", "temperature", "reasoning_effort"))
            assertFalse(recorded.body().has(absent), absent);
        assertEquals("test-model", recorded.body().path("model").asText(), "the request's model, when it names one");
        assertTrue(recorded.body().path("stream").asBoolean(), "model.stream is true unless set");
    }

    @Test
    void retriesOnceWithoutStreamOptionsAndRemembers() throws Exception {
        upstream.enqueue(Turn.error(400, "Unrecognized request argument supplied: stream_options"),
                Turn.text("first"), Turn.text("second"));
        // its own host: the provider remembers, and the shared one must keep sending stream_options
        try (var remembering = TestHost.builder().plugins("provider-openai").model(upstream).start()) {
            assertEquals(List.of("first"), Fixtures.texts(Fixtures.run(remembering.models(), Fixtures.request(true))));
            assertEquals(List.of("second"), Fixtures.texts(Fixtures.run(remembering.models(), Fixtures.request(true))));
        }
        var sent = sent().stream().map(r -> r.body().has("stream_options")).toList();
        assertEquals(List.of(true, false, false), sent);
    }

    @Test
    void another400IsNotRetriedAndNotRetryable() {
        upstream.enqueue(Turn.error(400, "context length exceeded"), Turn.text("never"));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(host.models(), Fixtures.request(true)));
        assertFalse(e.retryable());
        assertEquals("Upstream model returned 400: context length exceeded", e.getMessage());
        assertEquals(1, sent().size());
    }

    @Test
    void cancellationDuringASlowStreamReturnsPromptly() throws Exception {
        upstream.enqueue(Turn.text("a b c d e f g h i j").chunkDelayMillis(1_000));
        var cancel = new Fixtures.Signal();
        var events = new CopyOnWriteArrayList<ModelEvent>();
        var call = CompletableFuture.runAsync(() -> {
            var e = assertThrows(ModelException.class,
                    () -> host.models().stream(Fixtures.request(true), events::add, cancel));
            assertEquals("Model call cancelled", e.getMessage());
            assertFalse(e.retryable());
        });
        Eventually.await(Duration.ofSeconds(5), "text arrived before the cancel", () -> !events.isEmpty()); // mid-stream
        cancel.cancel();
        call.get(5, TimeUnit.SECONDS); // well before the ten-second stream would end
        assertFalse(events.isEmpty());
        assertFalse(events.stream().anyMatch(e -> e instanceof ModelEvent.Finish));
    }

    @Test
    void anInterruptOfTheCallingThreadMidStreamEndsTheCallAsCancelled() throws Exception {
        upstream.enqueue(Turn.text("a b c d e f g h i j").chunkDelayMillis(1_000));
        var events = new CopyOnWriteArrayList<ModelEvent>();
        var outcome = new CompletableFuture<ModelException>();
        var caller = Thread.ofVirtual().start(() -> {
            try {
                host.models().stream(Fixtures.request(true), events::add, Fixtures.NEVER);
                outcome.completeExceptionally(new AssertionError("the call ended normally"));
            } catch (ModelException e) {
                outcome.complete(e);
            } catch (RuntimeException | Error e) {
                outcome.completeExceptionally(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "text arrived before the interrupt", () -> !events.isEmpty());
        caller.interrupt();
        var e = outcome.get(5, TimeUnit.SECONDS); // well before the ten-second stream would end
        assertEquals("Model call cancelled", e.getMessage());
        assertFalse(e.retryable());
    }

    @Test
    void cancellationBeforeTheFirstByteReturnsPromptly() throws Exception {
        var held = new HeldTurn(Turn.text("late"));
        upstream.enqueue(held);
        var cancel = new Fixtures.Signal();
        try {
            var call = CompletableFuture.runAsync(() -> assertThrows(ModelException.class,
                    () -> host.models().stream(Fixtures.request(true), e -> {}, cancel)));
            held.awaitArrival();
            cancel.cancel();
            call.get(5, TimeUnit.SECONDS); // the upstream has not answered: only the cancel ends the call
        } finally {
            held.release();
        }
    }

    @Test
    void theCallDeadlineFromTimeoutSecondsCoversASlowBody() throws Exception {
        upstream.enqueue(Turn.text("a b c d").chunkDelayMillis(1_000)); // four seconds of body, a chunk a second
        try (var twoSeconds = Fixtures.host(Map.of("model.base_url", upstream.baseUrl(), "model.name", "m",
                "model.timeout_seconds", "2"))) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(twoSeconds.models(), Fixtures.request(true)));
            assertEquals("Upstream model timed out after 2 s", e.getMessage());
            assertFalse(e.retryable(), "text was already emitted");
        }
    }

    @Test
    void anUpstreamSilentForIdleTimeoutSecondsTimesOut() throws Exception {
        var held = new HeldTurn(Turn.text("late"));
        upstream.enqueue(held);
        try (var oneSecond = Fixtures.host(Map.of("model.base_url", upstream.baseUrl(), "model.name", "m",
                "model.idle_timeout_seconds", "1"))) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(oneSecond.models(), Fixtures.request(true)));
            assertEquals("Upstream model timed out after 1 s without sending anything", e.getMessage());
            assertTrue(e.retryable(), "nothing was emitted yet");
            assertTrue(held.arrived());
        } finally {
            held.release();
        }
    }

    @Test
    void pluginContributesTheProviderFromTheModelSection() throws Exception {
        assertTrue(host.pluginListing().contains("model provider openai"), host.pluginListing());
        assertTrue(host.models().available(), "the provider says model.* is configured");
        assertEquals(ScriptedUpstream.MODEL, host.models().defaultModel());
        upstream.enqueue(Turn.text("via plugin"));
        var events = Fixtures.run(host.models(), Fixtures.request(true));
        assertEquals("via plugin", String.join("", Fixtures.texts(events)));
        assertEquals(new ModelEvent.Finish(FinishReason.STOP), events.getLast());
        assertEquals(upstream.baseUrl().replaceFirst("^http://[^/]+", "") + "/chat/completions", sent().getFirst().path());
    }

    /**
     * With only {@code model.api_key} (and a name) the provider calls OpenAI's API: seen at a proxy
     * ({@code HTTPS_PROXY}) that refuses the tunnel, so nothing leaves the machine.
     */
    @Test
    void anApiKeyAloneMeansOpenAi() throws Exception {
        try (var proxy = new RawServer()) {
            var tunnel = new CompletableFuture<RawServer.Received>();
            proxy.then(peer -> {
                tunnel.complete(peer.read());
                peer.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
            });
            try (var openAi = Fixtures.host(Map.of("model.api_key", "sk-test-key-of-openai", "model.name", "gpt-4o"),
                    "HTTPS_PROXY", "http://127.0.0.1:" + proxy.uri("/").getPort())) {
                assertTrue(openAi.models().available(), "an API key and a name are a configured model");
                assertEquals("gpt-4o", openAi.models().defaultModel());
                var e = assertThrows(ModelException.class, () -> Fixtures.run(openAi.models(), Fixtures.request(true)));
                assertTrue(e.getMessage().contains("https://api.openai.com/v1/chat/completions"), e.getMessage());
                assertFalse(e.getMessage().contains("sk-test-key-of-openai"), e.getMessage());
            }
            var connect = tunnel.get(5, TimeUnit.SECONDS);
            assertEquals("CONNECT api.openai.com:443 HTTP/1.1", connect.requestLine());
            assertFalse(connect.headers().toString().contains("sk-test-key-of-openai"), "the key goes inside the tunnel");
        }
    }

    /** A configuration error the plugin finds while building its provider stops the boot as one, naming the keys. */
    @Test
    void aClientCertificateWithoutItsKeyIsAConfigurationError() {
        var e = assertThrows(IllegalStateException.class, () -> Fixtures.host(Map.of(
                "model.base_url", upstream.baseUrl(), "model.name", "m", "model.tls.client_cert", "/etc/up/cert.pem")).close());
        assertTrue(e.getMessage().startsWith("TestHost failed to boot: model.tls.client_cert and model.tls.client_key "
                + "go together: model.tls.client_key is not set"), "a configuration error, not a plugin failure: "
                + e.getMessage());
        Throwable cause = e;
        while (cause != null && !(cause instanceof ConfigException)) cause = cause.getCause();
        assertTrue(cause instanceof ConfigException, "the plugin's ConfigException under the boot failure");
        assertEquals("model.tls.client_key", ((ConfigException) cause).key());
    }

    private static ToolSpec tool(String name) throws Exception {
        return new ToolSpec(name, "d " + name, (ObjectNode) JSON.readTree("{\"type\":\"object\"}"), "web", List.of(),
                ToolRisk.values()[0], 1000, true, false, "x");
    }
}
