package dev.caduceus.spi.http;

import static java.util.Objects.requireNonNull;

/**
 * Thrown by a handler (or by {@link HttpExchange#body()}) to answer with {@link #error()} in the
 * contract's JSON envelope. Cheap: no stack trace is filled in.
 *
 * <p>Immutable once thrown; safe to pass between threads.
 */
public final class HttpStatusException extends RuntimeException {
    private final ApiError error;

    public HttpStatusException(ApiError error) {
        super(requireNonNull(error, "error").message(), null, false, false);
        this.error = error;
    }

    public ApiError error() {
        return error;
    }
}
