package dev.caduceus.spi.http;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * An error answer in the contract's envelope:
 * {@code {"error":{"message":…,"type":…,"param":…,"code":…}}}.
 *
 * <p>Immutable; safe to share. {@code headers} are added to the response (for example
 * {@code x-should-retry: false} or {@code Retry-After}).
 */
public record ApiError(int status, String message, String type, String param, String code,
                       Map<String, String> headers) {

    public static final String INVALID_REQUEST = "invalid_request_error";
    public static final String AUTH = "gateway_auth_error";
    public static final String RATE_LIMIT = "rate_limit_error";
    public static final String SERVER = "server_error";

    public ApiError {
        if (status < 400 || status > 599) throw new IllegalArgumentException("status must be 4xx/5xx: " + status);
        requireNonNull(message, "message");
        requireNonNull(type, "type");
        requireNonNull(code, "code");
        headers = Map.copyOf(headers);
    }

    public ApiError(int status, String message, String type, String param, String code) {
        this(status, message, type, param, code, Map.of());
    }

    /** A 400 {@code invalid_request_error}. */
    public static ApiError badRequest(String code, String message, String param) {
        return new ApiError(400, message, INVALID_REQUEST, param, code);
    }

    /** A 404 {@code invalid_request_error}. */
    public static ApiError notFound(String code, String message) {
        return new ApiError(404, message, INVALID_REQUEST, null, code);
    }

    /** A 500 {@code server_error} with code {@code internal_error}. */
    public static ApiError internal(String message) {
        return new ApiError(500, message, SERVER, null, "internal_error");
    }

    /** This error with one more response header. */
    public ApiError withHeader(String name, String value) {
        var copy = new java.util.LinkedHashMap<>(headers);
        copy.put(name, value);
        return new ApiError(status, message, type, param, code, copy);
    }

    /** Throwable form, for handlers. */
    public HttpStatusException exception() {
        return new HttpStatusException(this);
    }
}
