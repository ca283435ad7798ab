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
    private final java.time.Duration retryAfter;

    public RunRejectedException(Reason reason, String message) {
        this(reason, message, null);
    }

    /** @param retryAfter when trying again may succeed (the {@code Retry-After} of 429s), or null for the default */
    public RunRejectedException(Reason reason, String message, java.time.Duration retryAfter) {
        super(message);
        this.reason = reason;
        this.retryAfter = retryAfter;
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
            case AT_CAPACITY, TOKEN_LIMIT -> retry(new dev.caduceus.spi.http.ApiError(429, message,
                    dev.caduceus.spi.http.ApiError.RATE_LIMIT, null, "rate_limit_exceeded"));
            case BUDGET_EXCEEDED -> retry(new dev.caduceus.spi.http.ApiError(429, message,
                    dev.caduceus.spi.http.ApiError.RATE_LIMIT, null, "budget_exceeded"));
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

    private dev.caduceus.spi.http.ApiError retry(dev.caduceus.spi.http.ApiError error) {
        long millis = retryAfter == null ? 1000 : Math.max(1000, retryAfter.toMillis());
        return error.withHeader("Retry-After", Long.toString((millis + 999) / 1000))
                .withHeader("retry-after-ms", Long.toString(millis));
    }

    /** The contract's draining message. */
    public static final String DRAINING_MESSAGE = "Gateway is draining existing work; retry shortly.";

    /**
     * Why; {@code KEY_REVOKED}: the run's owner is a named key that was revoked (a job of that key firing);
     * {@code WEBHOOK_NOT_ALLOWED}: the run's webhook names a private, loopback or link-local host that
     * {@code webhooks.allow_private_hosts} does not list, or one that does not resolve; {@code BUDGET_EXCEEDED}: the
     * owner's key spent its budget for the period (429 {@code budget_exceeded}, {@code Retry-After} until the next);
     * {@code TOKEN_LIMIT}: its turns used its tokens per minute (429 {@code rate_limit_exceeded}).
     */
    public enum Reason { AT_CAPACITY, DRAINING, MODEL_NOT_CONFIGURED, IDEMPOTENCY_CONFLICT, KEY_REVOKED, WEBHOOK_NOT_ALLOWED,
        BUDGET_EXCEEDED, TOKEN_LIMIT }

    /** The answer to a runs {@code Idempotency-Key} reused with a different request. */
    public static final String IDEMPOTENCY_CONFLICT_MESSAGE =
            "Idempotency-Key was already used with a different request payload";
}
