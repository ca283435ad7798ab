package dev.caduceus.platform.host.webhooks;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One webhook message: its id ({@code webhook-id}, the same on every retry so that receivers can drop
 * duplicates), event type, when it happened and the JSON body sent. Immutable.
 *
 * @param id        {@code msg_} and 24 hex digits
 * @param type      the event type ({@code run.completed}, …, or {@code webhook.test})
 * @param timestamp when the event happened
 * @param body      the JSON body, as sent and signed
 */
public record WebhookMessage(String id, String type, Instant timestamp, byte[] body) {
    private static final SecureRandom RANDOM = new SecureRandom();

    public WebhookMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(body, "body");
    }

    /** A new message id. */
    public static String newId() {
        var bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "msg_" + HexFormat.of().formatHex(bytes);
    }
}
