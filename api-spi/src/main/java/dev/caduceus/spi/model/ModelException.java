package dev.caduceus.spi.model;

/**
 * A model call failed. Providers never retry; {@link #retryable()} tells the agent loop whether a
 * retry makes sense. {@link #status()} is the upstream HTTP status, or 0 when there was none.
 * The message must not contain credentials. {@link #retryAfter()} carries the upstream's
 * {@code Retry-After}, which the loop prefers to its own backoff.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class ModelException extends Exception {
    private final boolean retryable;
    private final int status;
    private final java.time.Duration retryAfter;

    public ModelException(String message, boolean retryable, int status, Throwable cause) {
        this(message, retryable, status, null, cause);
    }

    public ModelException(String message, boolean retryable, int status, java.time.Duration retryAfter,
                          Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
        this.status = status;
        this.retryAfter = retryAfter;
    }

    /** The wait the upstream asked for, if it sent {@code Retry-After}. */
    public java.util.Optional<java.time.Duration> retryAfter() { return java.util.Optional.ofNullable(retryAfter); }

    public boolean retryable() { return retryable; }

    public int status() { return status; }
}
