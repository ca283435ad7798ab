package dev.caduceus.spi.agent;

/**
 * {@link Runs#start} refused a run: the concurrency cap is reached ({@link Reason#AT_CAPACITY}), the
 * host is draining ({@link Reason#DRAINING}) or no model is configured
 * ({@link Reason#MODEL_NOT_CONFIGURED}). Endpoint plugins map it to 429 or 503.
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

    public enum Reason { AT_CAPACITY, DRAINING, MODEL_NOT_CONFIGURED }
}
