package dev.caduceus.platform.host.http;

import dev.caduceus.spi.http.ApiError;
import java.util.Locale;
import org.eclipse.jetty.http.HttpStatus;

/**
 * The platform's own error answers (docs/api.md#errors), and the mapping from a bare HTTP status (an error
 * Jetty produced itself) to one of them. Pure functions.
 */
final class ApiErrors {
    static final String DRAINING_MESSAGE = "Gateway is draining existing work; retry shortly.";

    private ApiErrors() {}

    static ApiError notFound(String method, String path) {
        return ApiError.notFound("not_found", "Unknown route: " + method + " " + path);
    }

    static ApiError methodNotAllowed(String method, String path, String allow) {
        var error = new ApiError(405, "Method " + method + " not allowed on " + path, ApiError.INVALID_REQUEST,
                null, "method_not_allowed");
        return allow == null ? error : error.withHeader("Allow", allow);
    }

    /**
     * With {@code Connection: close}: the rest of the body is never read, so the connection cannot
     * carry another request.
     */
    static ApiError bodyTooLarge() {
        return new ApiError(413, "Request body too large.", ApiError.INVALID_REQUEST, null, "body_too_large")
                .withHeader("Connection", "close");
    }

    static ApiError invalidContentLength() {
        return ApiError.badRequest("invalid_content_length", "Invalid Content-Length header.", null);
    }

    /** A body that could not be read whole: broken chunked framing, or the client stopped sending. */
    static ApiError invalidBody() {
        return ApiError.badRequest("invalid_body",
                "Request body could not be read: malformed chunked encoding or cut short.", null);
    }

    /** The body stopped arriving for the idle timeout. */
    static ApiError requestTimeout() {
        return new ApiError(408, "Request body not received in time.", ApiError.INVALID_REQUEST, null,
                "request_timeout").withHeader("Connection", "close");
    }

    /**
     * A {@code Transfer-Encoding} other than {@code chunked} (RFC 9112 §6.1: 501 for a coding the
     * server does not understand); the body is left unread, so the connection closes.
     */
    static ApiError unsupportedTransferEncoding() {
        return new ApiError(501, "Unsupported Transfer-Encoding: only chunked is supported.",
                ApiError.INVALID_REQUEST, null, "unsupported_transfer_encoding").withHeader("Connection", "close");
    }

    static ApiError invalidJson() {
        return ApiError.badRequest("invalid_json", "Invalid JSON in request body", null);
    }

    static ApiError unauthorized() {
        return new ApiError(401, "Invalid gateway API key (API_SERVER_KEY)", ApiError.AUTH, null,
                "gateway_auth_failed");
    }

    /** 429 for a named key over its requests per minute. */
    static ApiError keyRateLimited(String name, int rpm, long retryAfterSeconds) {
        return new ApiError(429, "API key '" + name + "' is over its limit of " + rpm + " requests per minute",
                ApiError.RATE_LIMIT, null, "rate_limit_exceeded")
                .withHeader("Retry-After", String.valueOf(retryAfterSeconds))
                .withHeader("retry-after-ms", String.valueOf(retryAfterSeconds * 1000));
    }

    static ApiError internal() {
        return ApiError.internal("Internal server error");
    }

    /**
     * 503 when the request bodies being handled already hold {@code server.body_memory_percent} of the
     * heap ({@link BodyBudget}); retrying is safe (nothing was read or run). The body is left unread,
     * so the connection closes.
     */
    static ApiError serverBusy(long bodyBytes, long budgetBytes) {
        return new ApiError(503, "The server is handling too many large requests to take this one ("
                + mib(bodyBytes) + " MiB) now: request bodies may hold " + mib(budgetBytes)
                + " MiB at once (server.body_memory_percent of the heap; more heap: JAVA_OPTS=-Xmx1g). Retry shortly.",
                ApiError.SERVER, null, "server_busy")
                .withHeader("Retry-After", "1")
                .withHeader("retry-after-ms", "1000")
                .withHeader("Connection", "close");
    }

    /**
     * 503 when the database could not be reached (PostgreSQL down or the connection lost): nothing was
     * stored, retrying once it is back is safe. The pools reconnect by themselves.
     */
    static ApiError databaseUnavailable() {
        return new ApiError(503, "The database is unavailable right now; nothing was stored. Retry shortly.",
                ApiError.SERVER, null, "database_unavailable")
                .withHeader("Retry-After", "2")
                .withHeader("retry-after-ms", "2000");
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    /** 503 from graceful shutdown; with {@code Retry-After: 1} and {@code retry-after-ms: 1000}, since retrying is safe. */
    static ApiError draining() {
        return new ApiError(503, DRAINING_MESSAGE, ApiError.INVALID_REQUEST, null, "gateway_draining")
                .withHeader("Retry-After", "1")
                .withHeader("retry-after-ms", "1000");
    }

    /**
     * The contract error for a status Jetty produced (parser errors, unhandled requests, shutdown,
     * failures). {@code reason} is Jetty's message or its cause's text; it is only inspected, never
     * echoed, so no internals leak.
     */
    static ApiError forStatus(int status, String method, String path, String reason) {
        return switch (status) {
            case 400 -> MalformedRequests.classify(reason);
            case 404 -> notFound(method, path);
            case 405 -> methodNotAllowed(method, path, null);
            case 413 -> bodyTooLarge();
            case 500 -> internal();
            case 503 -> draining();
            default -> generic(status);
        };
    }

    private static ApiError generic(int status) {
        int code = status < 400 || status > 599 ? 500 : status;
        var reason = HttpStatus.getMessage(code);
        var snake = reason.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", "");
        return code >= 500
                ? new ApiError(code, reason, ApiError.SERVER, null, snake)
                : new ApiError(code, reason, ApiError.INVALID_REQUEST, null, snake);
    }
}
