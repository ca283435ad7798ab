package dev.caduceus.platform.host.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.config.Secret;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WebhookSender} against a real receiver on loopback: what it sends (the Standard Webhooks headers, a
 * signature per secret that HMAC-SHA256 recomputed here matches) and how each answer is classified; and the
 * egress policy, which refuses a loopback receiver unless the target may be private. The npm
 * {@code standardwebhooks} verifier checks the same signatures end to end ({@code WebhooksIT}).
 */
class WebhookSenderTest {
    static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");
    static final byte[] KEY_ONE = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] KEY_TWO = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    record Received(Map<String, String> headers, String body) {}

    Server receiver;
    ServerConnector connector;
    final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();
    OutboundClient client;
    WebhookSender sender;

    @BeforeEach
    void start() throws Exception {
        receiver = new Server();
        connector = new ServerConnector(receiver, 1, 1);
        connector.setHost("127.0.0.1");
        receiver.addConnector(connector);
        receiver.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                var headers = new java.util.HashMap<String, String>();
                request.getHeaders().forEach(f -> headers.put(f.getLowerCaseName(), f.getValue()));
                received.add(new Received(headers, Content.Source.asString(request, StandardCharsets.UTF_8)));
                int status = switch (Request.getPathInContext(request)) {
                    case "/ok" -> 204;
                    case "/down" -> 503;
                    case "/busy" -> 429;
                    case "/bad" -> 400;
                    case "/moved" -> 302;
                    default -> 404;
                };
                response.setStatus(status);
                if (status == 429) response.getHeaders().put("Retry-After", "7");
                if (status == 302) response.getHeaders().put("Location", "http://127.0.0.1:1/elsewhere");
                if (status == 204) callback.succeeded();
                else Content.Sink.write(response, true, "{\"error\":\"status " + status + "\"}", callback);
                return true;
            }
        });
        receiver.start();
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
        sender = new WebhookSender(client, Clock.fixed(NOW, ZoneOffset.UTC), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        receiver.stop();
        client.close();
    }

    WebhookSender.Target target(String path, boolean allowPrivate) {
        var signer = WebhookSigner.of(List.of(new Secret(Base64.getEncoder().encodeToString(KEY_ONE)),
                new Secret(Base64.getEncoder().encodeToString(KEY_TWO))));
        return new WebhookSender.Target(URI.create("http://127.0.0.1:" + connector.getLocalPort() + path), signer,
                allowPrivate);
    }

    static WebhookMessage message() {
        return new WebhookMessage(WebhookMessage.newId(), "run.completed", NOW,
                "{\"type\":\"run.completed\",\"data\":{\"run_id\":\"run_1\"}}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aDeliveryCarriesTheStandardWebhooksHeadersWithASignaturePerSecret() throws Exception {
        var message = message();
        var outcome = sender.send(target("/ok", true), message);
        assertEquals(new DeliveryOutcome.Delivered(204), outcome);
        var got = received.poll(10, TimeUnit.SECONDS);
        assertEquals(message.id(), got.headers().get("webhook-id"));
        assertEquals(Long.toString(NOW.getEpochSecond()), got.headers().get("webhook-timestamp"));
        assertEquals("application/json", got.headers().get("content-type"));
        assertEquals(new String(message.body(), StandardCharsets.UTF_8), got.body());
        var signed = message.id() + "." + NOW.getEpochSecond() + "." + got.body();
        assertEquals("v1," + hmac(KEY_ONE, signed) + " v1," + hmac(KEY_TWO, signed), got.headers().get("webhook-signature"));
    }

    @Test
    void fiveHundredsAnd429AreRetriedHonouringRetryAfterOther4xxAndRedirectsAreNot() {
        var down = assertInstanceOf(DeliveryOutcome.Retry.class, sender.send(target("/down", true), message()));
        assertTrue(down.error().startsWith("HTTP 503: {\"error\":\"status 503\"}"), down.error());
        assertEquals(Optional.empty(), down.retryAfter());
        var busy = assertInstanceOf(DeliveryOutcome.Retry.class, sender.send(target("/busy", true), message()));
        assertEquals(Optional.of(Duration.ofSeconds(7)), busy.retryAfter());
        var bad = assertInstanceOf(DeliveryOutcome.Rejected.class, sender.send(target("/bad", true), message()));
        assertTrue(bad.error().startsWith("HTTP 400"), bad.error());
        var moved = assertInstanceOf(DeliveryOutcome.Rejected.class, sender.send(target("/moved", true), message()));
        assertTrue(moved.error().contains("redirects are not followed"), moved.error());
        assertEquals(4, received.size(), "one request each: the redirect was not followed");
    }

    @Test
    void aLoopbackReceiverIsRefusedUnlessTheTargetMayBePrivateAndAClosedPortIsRetried() throws Exception {
        var refused = assertInstanceOf(DeliveryOutcome.Rejected.class, sender.send(target("/ok", false), message()));
        assertTrue(refused.error().startsWith("refused by the egress policy"), refused.error());
        assertTrue(received.isEmpty(), "nothing reached the receiver");
        int closed;
        try (var socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        var target = new WebhookSender.Target(URI.create("http://127.0.0.1:" + closed + "/"), target("/", true).signer(), false,
                true, Duration.ofSeconds(10));
        var unreachable = assertInstanceOf(DeliveryOutcome.Retry.class, sender.send(target, message()));
        assertTrue(unreachable.error().startsWith("unreachable"), unreachable.error());
    }

    @Test
    void aHermesEndpointAlsoGetsHermesHeadersSignedOverTheBodyAloneWithThePlainSecret() throws Exception {
        var plain = "a-hermes-secret"; // hooks.outbound holds it as written; the signer as the base64 of its bytes
        var signer = WebhookSigner.of(List.of(new Secret(Base64.getEncoder().encodeToString(
                plain.getBytes(StandardCharsets.UTF_8)))));
        var url = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ok");
        var message = message();
        var outcome = sender.send(new WebhookSender.Target(url, Optional.of(signer), true, true, Duration.ofSeconds(3)),
                message);
        assertInstanceOf(DeliveryOutcome.Delivered.class, outcome);
        var got = received.poll(5, TimeUnit.SECONDS);
        var body = new String(message.body(), StandardCharsets.UTF_8);
        var mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(plain.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        var expected = "sha256=" + java.util.HexFormat.of().formatHex(mac.doFinal(message.body()));
        assertEquals(expected, got.headers().get("x-hermes-signature-256"), "Hermes' HMAC over the body, hex");
        assertEquals("run.completed", got.headers().get("x-hermes-event"));
        assertEquals(message.id(), got.headers().get("x-hermes-delivery"), "the delivery id is the webhook-id");
        var timestamp = got.headers().get("webhook-timestamp");
        assertEquals("v1," + hmac(plain.getBytes(StandardCharsets.UTF_8), message.id() + "." + timestamp + "." + body),
                got.headers().get("webhook-signature"), "and the Standard Webhooks signature with the same bytes");

        var unsigned = sender.send(new WebhookSender.Target(url, Optional.empty(), true, true, Duration.ofSeconds(3)),
                message());
        assertInstanceOf(DeliveryOutcome.Delivered.class, unsigned);
        var bare = received.poll(5, TimeUnit.SECONDS);
        assertEquals(null, bare.headers().get("x-hermes-signature-256"), "no secret: unsigned, as Hermes sends it");
        assertEquals(null, bare.headers().get("webhook-signature"));
        assertEquals("run.completed", bare.headers().get("x-hermes-event"));
    }

    @Test
    void aStandardEndpointGetsNoHermesHeaders() throws Exception {
        assertInstanceOf(DeliveryOutcome.Delivered.class, sender.send(target("/ok", true), message()));
        var got = received.poll(5, TimeUnit.SECONDS);
        assertTrue(got.headers().keySet().stream().noneMatch(h -> h.startsWith("x-hermes-")), got.headers().toString());
    }

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDate() {
        assertEquals(Optional.of(Duration.ofSeconds(120)), sender.retryAfter("120"));
        assertEquals(Optional.of(Duration.ofSeconds(90)), sender.retryAfter("Fri, 04 Dec 2026 10:01:30 GMT"));
        assertEquals(Optional.empty(), sender.retryAfter("soon"));
    }

    static String hmac(byte[] key, String text) throws Exception {
        var mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return Base64.getEncoder().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    }
}
