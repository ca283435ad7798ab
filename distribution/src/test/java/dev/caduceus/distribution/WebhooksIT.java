package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks from the distribution to a receiver that checks them with the npm Standard Webhooks library
 * ({@link WebhookReceiver}): {@code caduceus webhooks test URL} signs a {@code webhook.test} message as the
 * server signs its webhooks, and the library accepts it; the egress policy refuses a loopback receiver unless
 * allowed; a receiver that holds another secret answers 401 and the command says so.
 */
@Timeout(180)
class WebhooksIT {
    static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString("webhooks-it-secret-0123456789abcdef".getBytes());
    static final String OTHER = "whsec_" + Base64.getEncoder().encodeToString("another-secret-of-32-bytes-abcdefgh".getBytes());
    static final Pattern ID = Pattern.compile("webhook-id (msg_[0-9a-f]+)");

    @TempDir Path home;

    static Caduceus run(Path home, String... args) throws Exception {
        var process = Caduceus.launch(home, Map.of(), args);
        process.awaitExit();
        return process;
    }

    @Test
    void webhooksTestSendsAMessageTheStandardWebhooksLibraryVerifies() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + OTHER + " " + SECRET + "\n");
        try (var receiver = WebhookReceiver.start(SECRET)) {
            try (var refused = run(home, "webhooks", "test", receiver.url("/hook"))) {
                assertEquals(1, refused.awaitExit(), refused.stdout() + refused.stderr());
                assertTrue(refused.stdout().contains("failed: refused by the egress policy"), refused.stdout());
            }
            try (var sent = run(home, "webhooks", "test", receiver.url("/hook"), "--allow-private")) {
                assertEquals(0, sent.awaitExit(), sent.stdout() + sent.stderr());
                assertTrue(sent.stdout().contains("delivered: HTTP 204"), sent.stdout());
                var id = ID.matcher(sent.stdout());
                assertTrue(id.find(), sent.stdout());
                var seen = receiver.next(Duration.ofSeconds(30));
                assertTrue(seen.path("verified").asBoolean(), "the library verified it (one of two rotating secrets): " + seen);
                assertEquals("webhook.test", seen.path("type").asText());
                assertEquals(id.group(1), seen.path("id").asText());
                assertTrue(receiver.drain().isEmpty(), "the refused one never reached the receiver");
            }
        }
    }

    @Test
    void aReceiverWithAnotherSecretAnswers401AndTheCommandFails() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + SECRET + "\n");
        try (var receiver = WebhookReceiver.start(OTHER); var sent = run(home, "webhooks", "test", receiver.url("/hook"),
                "--allow-private")) {
            assertEquals(1, sent.awaitExit(), sent.stdout() + sent.stderr());
            assertTrue(sent.stdout().contains("failed: HTTP 401"), sent.stdout());
            assertFalse(receiver.next(Duration.ofSeconds(30)).path("verified").asBoolean());
        }
    }

    @Test
    void aConfiguredEndpointSignsWithItsOwnSecretAndMayBePrivate() throws Exception {
        try (var receiver = WebhookReceiver.start(OTHER)) {
            Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + SECRET + "\n  endpoints:\n"
                    + "    - url: " + receiver.url("/hook") + "\n      secret: " + OTHER + "\n      allow_private: true\n"
                    + "      events: [run.completed]\n");
            try (var sent = run(home, "webhooks", "test", receiver.url("/hook"))) {
                assertEquals(0, sent.awaitExit(), sent.stdout() + sent.stderr());
                assertTrue(sent.stdout().contains("the endpoint's secret"), sent.stdout());
                assertTrue(receiver.next(Duration.ofSeconds(30)).path("verified").asBoolean());
            }
        }
    }

    @Test
    void noSecretOrAMalformedOneIsAClearError() throws Exception {
        try (var none = run(home, "webhooks", "test", "https://hooks.example.com/x")) {
            assertEquals(2, none.awaitExit());
            assertTrue(none.stderr().contains("nothing to sign with: webhooks.secret is not set"), none.stderr());
        }
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: not-a-secret\n  endpoints:\n"
                + "    - url: https://hooks.example.com/x\n      events: [run.finished]\n");
        try (var malformed = run(home, "webhooks", "test", "https://hooks.example.com/x")) {
            assertEquals(2, malformed.awaitExit(), malformed.stderr());
            assertTrue(malformed.stderr().contains("Invalid value for webhooks.secret in " + home.resolve("config.yaml")),
                    malformed.stderr());
            assertTrue(malformed.stderr().contains("is not a Standard Webhooks secret"), malformed.stderr());
            assertFalse(malformed.stderr().contains("not-a-secret"), "a secret is never printed: " + malformed.stderr());
        }
        Files.writeString(home.resolve("config.yaml"), "webhooks:\n  secret: " + SECRET + "\n  endpoints:\n"
                + "    - url: https://hooks.example.com/x\n      events: [run.finished]\n");
        try (var unknownEvent = run(home, "webhooks", "test", "https://hooks.example.com/x")) {
            assertEquals(2, unknownEvent.awaitExit(), unknownEvent.stderr());
            assertTrue(unknownEvent.stderr().contains("webhooks.endpoints[0].events")
                    && unknownEvent.stderr().contains("names run.finished, not an event"), unknownEvent.stderr());
        }
    }
}
