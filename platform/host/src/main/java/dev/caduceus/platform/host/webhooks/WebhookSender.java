package dev.caduceus.platform.host.webhooks;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * Sends one webhook message to one endpoint, once: a {@code POST} of its JSON body with the Standard
 * Webhooks headers ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}; and Hermes'
 * {@code X-Hermes-*} for a {@code hooks.outbound} endpoint) under the
 * egress policy (public addresses only, unless the endpoint may be private; never a cloud metadata
 * address), 5 s to connect and 10 s in all, redirects not followed and at most 64 KiB of the answer read.
 * Thread-safe; blocks the calling thread (a virtual thread is the intended caller).
 */
public final class WebhookSender {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration TOTAL_TIMEOUT = Duration.ofSeconds(10);
    static final int MAX_ANSWER_BYTES = 64 * 1024;
    private static final int MAX_ERROR_CHARS = 200;

    private final OutboundHttp outbound;
    private final Clock clock;
    private final String userAgent;

    public WebhookSender(OutboundHttp outbound, Clock clock, String userAgent) {
        this.outbound = outbound;
        this.clock = clock;
        this.userAgent = userAgent;
    }

    /**
     * Where a message goes and how it is signed.
     *
     * @param signer       its secrets; empty: sent unsigned (a Hermes {@code hooks.outbound} entry without one)
     * @param hermes       also Hermes' headers: {@code X-Hermes-Event}, {@code X-Hermes-Delivery} (the message id)
     *                     and, when signed, {@code X-Hermes-Signature-256}
     * @param allowPrivate whether the address may be private, loopback or link-local
     * @param timeout      the attempt's limit, at most {@link #TOTAL_TIMEOUT}
     */
    public record Target(URI url, Optional<WebhookSigner> signer, boolean hermes, boolean allowPrivate, Duration timeout) {
        public Target {
            java.util.Objects.requireNonNull(url, "url");
            java.util.Objects.requireNonNull(signer, "signer");
            if (timeout.compareTo(TOTAL_TIMEOUT) > 0) timeout = TOTAL_TIMEOUT;
        }

        /** Signed the Standard Webhooks way only, with the usual 10 s. */
        public Target(URI url, WebhookSigner signer, boolean allowPrivate) {
            this(url, Optional.of(signer), false, allowPrivate, TOTAL_TIMEOUT);
        }
    }

    /** One attempt to deliver {@code message} to {@code target}. */
    public DeliveryOutcome send(Target target, WebhookMessage message) {
        long timestamp = clock.instant().getEpochSecond();
        var request = OutboundHttp.Request.post(target.url(), "application/json", message.body())
                .withHeader("webhook-id", message.id())
                .withHeader("webhook-timestamp", Long.toString(timestamp))
                .withHeader("User-Agent", userAgent);
        if (target.signer().isPresent())
            request = request.withHeader("webhook-signature",
                    target.signer().get().signature(message.id(), timestamp, message.body()));
        if (target.hermes()) {
            request = request.withHeader("X-Hermes-Event", message.type()).withHeader("X-Hermes-Delivery", message.id());
            if (target.signer().isPresent())
                request = request.withHeader("X-Hermes-Signature-256", target.signer().get().hermes(message.body()));
        }
        var connect = CONNECT_TIMEOUT.compareTo(target.timeout()) < 0 ? CONNECT_TIMEOUT : target.timeout();
        request = request
                .withTimeouts(connect, target.timeout(), target.timeout())
                .withEgress(target.allowPrivate() ? Egress.privateAllowed(List.of()) : Egress.publicOnly(List.of()))
                .withFollowRedirects(false);
        try (var response = outbound.send(request)) {
            int status = response.status();
            if (status >= 200 && status < 300) {
                response.text(MAX_ANSWER_BYTES); // read (and bounded) so that the connection can be reused
                return new DeliveryOutcome.Delivered(status);
            }
            var answer = oneLine(response.text(MAX_ANSWER_BYTES));
            var error = "HTTP " + status + (answer.isEmpty() ? "" : ": " + answer);
            if (status == 429 || status >= 500)
                return new DeliveryOutcome.Retry(error, response.header("Retry-After").flatMap(this::retryAfter));
            if (status >= 300 && status < 400)
                return new DeliveryOutcome.Rejected(error + " (redirects are not followed)");
            return new DeliveryOutcome.Rejected(error);
        } catch (Failure e) {
            return switch (e.kind()) {
                case REFUSED -> new DeliveryOutcome.Rejected("refused by the egress policy: " + e.getMessage());
                case REDIRECT -> new DeliveryOutcome.Rejected(e.getMessage() + " (redirects are not followed)");
                default -> new DeliveryOutcome.Retry(e.kind().name().toLowerCase(java.util.Locale.ROOT) + ": "
                        + oneLine(e.getMessage()), Optional.empty());
            };
        }
    }

    /** {@code Retry-After} as seconds or an HTTP date; empty when it is neither. */
    Optional<Duration> retryAfter(String value) {
        var text = value.trim();
        try {
            long seconds = Long.parseLong(text);
            return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        } catch (NumberFormatException notSeconds) {
            try {
                var when = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                var wait = Duration.between(clock.instant(), when);
                return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
            } catch (DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
    }

    private static String oneLine(String text) {
        var line = text == null ? "" : text.strip().replaceAll("\\s+", " ");
        return line.length() > MAX_ERROR_CHARS ? line.substring(0, MAX_ERROR_CHARS) + "…" : line;
    }
}
