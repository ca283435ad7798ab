package dev.caduceus.spi.http;

/**
 * The client disconnected: a write to its response failed. Thrown by {@link EventStream} methods;
 * the handler applies its route's disconnect rule (cancel the run, or not).
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class ClientGoneException extends Exception {
    public ClientGoneException(String message, Throwable cause) {
        super(message, cause);
    }
}
