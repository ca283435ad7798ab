package dev.caduceus.spi.model;

/**
 * A model call failed. Providers never retry; {@link #retryable()} tells the agent loop whether a
 * retry makes sense. {@link #status()} is the upstream HTTP status, or 0 when there was none.
 * The message must not contain credentials.
 */
public final class ModelException extends Exception {
    private final boolean retryable;
    private final int status;

    public ModelException(String message, boolean retryable, int status, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
        this.status = status;
    }

    public boolean retryable() { return retryable; }

    public int status() { return status; }
}
