package dev.caduceus.plugin.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.ToolRisk;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the provider sends upstream, the stream_options fallback, cancellation and the plugin entry. */
class OpenAiRequestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ScriptedUpstream upstream = ScriptedUpstream.start();
    private final OutboundClient outbound = Fixtures.outbound();

    @AfterEach
    void stop() {
        outbound.close();
        upstream.close();
    }

    @Test
    void sendsTheRequestBodyOfToolsSection23() throws Exception {
        var extraBody = (ObjectNode) JSON.readTree("{\"top_k\":5}");
        var settings = new ModelSettings(upstream.baseUrl(), "sk-key", "default-model", Duration.ofSeconds(30), 256,
                true, false, extraBody);
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
        try (var provider = new OpenAiProvider(settings, outbound)) {
            Fixtures.run(provider, request);
        }
        var recorded = upstream.chatRequests().getFirst();
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
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            Fixtures.run(provider, Fixtures.request(true));
        }
        var recorded = upstream.chatRequests().getFirst();
        assertNull(recorded.header("authorization"));
        for (var absent : List.of("tools", "tool_choice", "max_tokens", "temperature", "reasoning_effort"))
            assertFalse(recorded.body().has(absent), absent);
        assertEquals("test-model", recorded.body().path("model").asText());
    }

    @Test
    void retriesOnceWithoutStreamOptionsAndRemembers() throws Exception {
        upstream.enqueue(Turn.error(400, "Unrecognized request argument supplied: stream_options"),
                Turn.text("first"), Turn.text("second"));
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            assertEquals(List.of("first"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(true))));
            assertEquals(List.of("second"), Fixtures.texts(Fixtures.run(provider, Fixtures.request(true))));
        }
        var sent = upstream.chatRequests().stream().map(r -> r.body().has("stream_options")).toList();
        assertEquals(List.of(true, false, false), sent);
    }

    @Test
    void another400IsNotRetriedAndNotRetryable() {
        upstream.enqueue(Turn.error(400, "context length exceeded"), Turn.text("never"));
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
            assertFalse(e.retryable());
            assertEquals("Upstream model returned 400: context length exceeded", e.getMessage());
        }
        assertEquals(1, upstream.chatRequests().size());
    }

    @Test
    void cancellationDuringASlowStreamReturnsPromptly() throws Exception {
        upstream.enqueue(Turn.text("a b c d e f g h i j").chunkDelayMillis(1_000));
        var cancel = new Fixtures.Signal();
        var events = new CopyOnWriteArrayList<ModelEvent>();
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            var call = CompletableFuture.runAsync(() -> {
                var e = assertThrows(ModelException.class,
                        () -> provider.stream(Fixtures.request(true), events::add, cancel));
                assertEquals("Model call cancelled", e.getMessage());
                assertFalse(e.retryable());
            });
            Eventually.await(Duration.ofSeconds(5), "text arrived before the cancel", () -> !events.isEmpty()); // mid-stream
            cancel.cancel();
            call.get(5, TimeUnit.SECONDS); // well before the ten-second stream would end
        }
        assertFalse(events.isEmpty());
        assertFalse(events.stream().anyMatch(e -> e instanceof ModelEvent.Finish));
    }

    @Test
    void anInterruptOfTheCallingThreadMidStreamEndsTheCallAsCancelled() throws Exception {
        upstream.enqueue(Turn.text("a b c d e f g h i j").chunkDelayMillis(1_000));
        var events = new CopyOnWriteArrayList<ModelEvent>();
        var outcome = new CompletableFuture<ModelException>();
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            var caller = Thread.ofVirtual().start(() -> {
                try {
                    provider.stream(Fixtures.request(true), events::add, Fixtures.NEVER);
                    outcome.completeExceptionally(new AssertionError("the call ended normally"));
                } catch (ModelException e) {
                    outcome.complete(e);
                }
            });
            Eventually.await(Duration.ofSeconds(5), "text arrived before the interrupt", () -> !events.isEmpty());
            caller.interrupt();
            var e = outcome.get(5, TimeUnit.SECONDS); // well before the ten-second stream would end
            assertEquals("Model call cancelled", e.getMessage());
            assertFalse(e.retryable());
        }
    }

    @Test
    void cancellationBeforeTheFirstByteReturnsPromptly() throws Exception {
        var held = new HeldTurn(Turn.text("late"));
        upstream.enqueue(held);
        var cancel = new Fixtures.Signal();
        try (var provider = new OpenAiProvider(Fixtures.settings(upstream.baseUrl(), null, true), outbound)) {
            var call = CompletableFuture.runAsync(() -> assertThrows(ModelException.class,
                    () -> provider.stream(Fixtures.request(true), e -> {}, cancel)));
            held.awaitArrival();
            cancel.cancel();
            call.get(5, TimeUnit.SECONDS); // the upstream has not answered: only the cancel ends the call
        } finally {
            held.release();
        }
    }

    @Test
    void theCallDeadlineCoversASlowBody() {
        upstream.enqueue(Turn.text("a b c d").chunkDelayMillis(1_000));
        var settings = new ModelSettings(upstream.baseUrl(), null, "m", Duration.ofMillis(1_500), null, true, false,
                null);
        try (var provider = new OpenAiProvider(settings, outbound)) {
            var e = assertThrows(ModelException.class, () -> Fixtures.run(provider, Fixtures.request(true)));
            assertTrue(e.getMessage().startsWith("Upstream model timed out"), e.getMessage());
            assertFalse(e.retryable(), "text was already emitted");
        }
    }

    @Test
    void pluginContributesTheProviderFromTheModelSection() throws Exception {
        var ctx = FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.base_url", upstream.baseUrl(), "model.name", "test-model"))
                .outbound(outbound).build();
        var plugin = new OpenAiPlugin();
        plugin.start(ctx);
        var providers = plugin.modelProviders(ctx);
        assertEquals(1, providers.size());
        var provider = providers.getFirst();
        assertEquals("openai", provider.id());
        assertTrue(provider.configured());
        upstream.enqueue(Turn.text("via plugin"));
        assertEquals(new ModelEvent.Finish(FinishReason.STOP), Fixtures.run(provider, Fixtures.request(true)).getLast());
        plugin.stop();
    }

    @Test
    void anApiKeyAloneMeansOpenAi() {
        var ctx = FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.api_key", "sk-test", "model.name", "gpt-4o", "model.timeout_seconds", "7"))
                .build();
        var settings = ModelSettings.from(ctx.section("model"));
        assertEquals(ModelSettings.OPENAI_BASE_URL, settings.baseUrl());
        assertEquals(java.time.Duration.ofSeconds(7), settings.timeout());
        assertTrue(settings.stream());
        assertTrue(settings.configured());
        assertTrue(!settings.toString().contains("sk-test"), settings.toString());
    }

    @Test
    void readsTheTransportSettings() {
        var defaults = ModelSettings.from(FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.base_url", "http://u/v1", "model.name", "m")).build().section("model"));
        assertEquals(Duration.ofSeconds(300), defaults.idleTimeout());
        assertEquals(OutboundHttp.Protocol.AUTO, defaults.protocol());
        assertEquals(OutboundHttp.Tls.DEFAULT, defaults.tls());
        var set = ModelSettings.from(FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.base_url", "http://u/v1", "model.name", "m",
                        "model.timeout_seconds", "60", "model.idle_timeout_seconds", "900", "model.protocol", "h2c",
                        "model.tls.ca_file", "/etc/up/ca.pem", "model.tls.client_cert", "/etc/up/cert.pem",
                        "model.tls.client_key", "/etc/up/key.pem"))
                .build().section("model"));
        assertEquals(Duration.ofSeconds(60), set.idleTimeout(), "never longer than the whole call");
        assertEquals(OutboundHttp.Protocol.H2C, set.protocol());
        assertEquals(new OutboundHttp.Tls(Optional.of(Path.of("/etc/up/ca.pem")), Optional.of(Path.of("/etc/up/cert.pem")),
                Optional.of(Path.of("/etc/up/key.pem"))), set.tls());
        assertEquals(OutboundHttp.Protocol.HTTP_1_1, ModelSettings.from(FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.protocol", "http1.1")).build().section("model")).protocol());
    }

    @Test
    void aClientCertificateWithoutItsKeyIsAConfigurationError() {
        var model = FakePlatformContext.builder("provider-openai")
                .sections(java.util.Map.of("model.tls.client_cert", "/etc/up/cert.pem")).build().section("model");
        var e = assertThrows(ConfigException.class, () -> ModelSettings.from(model));
        assertEquals("model.tls.client_key", e.key());
        assertTrue(e.getMessage().contains("model.tls.client_cert and model.tls.client_key go together"), e.getMessage());
    }

    private static ToolSpec tool(String name) throws Exception {
        return new ToolSpec(name, "d " + name, (ObjectNode) JSON.readTree("{\"type\":\"object\"}"), "web", List.of(),
                ToolRisk.values()[0], 1000, true, false, "x");
    }
}
