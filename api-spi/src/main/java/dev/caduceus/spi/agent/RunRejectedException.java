package dev.caduceus.spi.agent;

/**
 * {@link Runs#start} refused a run: the concurrency cap is reached ({@link Reason#AT_CAPACITY}), the
 * host is draining ({@link Reason#DRAINING}) or no model is configured
 * ({@link Reason#MODEL_NOT_CONFIGURED}). Endpoint plugins map it to 429 or 503.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class RunRejectedException extends Exception {
    private final Reason reason;

    public RunRejectedException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /**
     * The answer to this refusal: draining → 503
     * {@code gateway_draining} and model missing → 503 {@code model_not_configured} (no retry), both
     * before any work; at capacity → 429 {@code rate_limit_exceeded} with retry hints.
     */
    public dev.caduceus.spi.http.ApiError toApiError() {
        var message = getMessage() == null ? "" : getMessage();
        return switch (reason) {
            case DRAINING -> new dev.caduceus.spi.http.ApiError(503, DRAINING_MESSAGE,
                    dev.caduceus.spi.http.ApiError.INVALID_REQUEST, null, "gateway_draining")
                    .withHeader("Retry-After", "1").withHeader("retry-after-ms", "1000");
            case MODEL_NOT_CONFIGURED -> new dev.caduceus.spi.http.ApiError(503, message,
                    dev.caduceus.spi.http.ApiError.SERVER, null, "model_not_configured")
                    .withHeader("x-should-retry", "false");
            case AT_CAPACITY -> new dev.caduceus.spi.http.ApiError(429, message,
                    dev.caduceus.spi.http.ApiError.RATE_LIMIT, null, "rate_limit_exceeded")
                    .withHeader("Retry-After", "1").withHeader("retry-after-ms", "1000");
            case KEY_REVOKED -> new dev.caduceus.spi.http.ApiError(403, message,
                    dev.caduceus.spi.http.ApiError.AUTH, null, "key_revoked").withHeader("x-should-retry", "false");
            case WEBHOOK_NOT_ALLOWED -> new dev.caduceus.spi.http.ApiError(400, message,
                    dev.caduceus.spi.http.ApiError.INVALID_REQUEST, "webhook", "webhook_not_allowed")
                    .withHeader("x-should-retry", "false");
            case IDEMPOTENCY_CONFLICT -> new dev.caduceus.spi.http.ApiError(409, message,
                    dev.caduceus.spi.http.ApiError.INVALID_REQUEST, null, "idempotency_key_conflict")
                    .withHeader("x-should-retry", "false");
        };
    }

    /** The contract's draining message. */
    public static final String DRAINING_MESSAGE = "Gateway is draining existing work; retry shortly.";

    /**
     * Why; {@code KEY_REVOKED}: the run's owner is a named key that was revoked (a job of that key firing);
     * {@code WEBHOOK_NOT_ALLOWED}: the run's webhook names a private, loopback or link-local host that
     * {@code webhooks.allow_private_hosts} does not list, or one that does not resolve.
     */
    public enum Reason { AT_CAPACITY, DRAINING, MODEL_NOT_CONFIGURED, IDEMPOTENCY_CONFLICT, KEY_REVOKED, WEBHOOK_NOT_ALLOWED }

    /** The answer to a runs {@code Idempotency-Key} reused with a different request. */
    public static final String IDEMPOTENCY_CONFLICT_MESSAGE =
            "Idempotency-Key was already used with a different request payload";
}
