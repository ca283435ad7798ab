package dev.caduceus.platform.host.webhooks;

import java.time.Duration;
import java.util.Optional;

/** How one attempt to deliver a webhook ended. */
public sealed interface DeliveryOutcome {
    /** One line for the operator: the status or the error. */
    String summary();

    /** The receiver answered 2xx. */
    record Delivered(int status) implements DeliveryOutcome {
        @Override
        public String summary() {
            return "delivered: HTTP " + status;
        }
    }

    /**
     * Worth another attempt: a timeout, a connection that failed, 429 or 5xx.
     *
     * @param retryAfter the receiver's {@code Retry-After}, when it sent one
     */
    record Retry(String error, Optional<Duration> retryAfter) implements DeliveryOutcome {
        @Override
        public String summary() {
            return "will retry: " + error + retryAfter.map(d -> " (Retry-After " + d.toSeconds() + " s)").orElse("");
        }
    }

    /** Not worth another: another 4xx, a redirect (never followed), or an address the egress policy refuses. */
    record Rejected(String error) implements DeliveryOutcome {
        @Override
        public String summary() {
            return "failed: " + error;
        }
    }
}
