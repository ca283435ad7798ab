package dev.caduceus.spi.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * One HTTP request and its response, as a handler sees it.
 *
 * <p>Threading: confined to the handler's thread, except {@link #onClientGone} callbacks, which may
 * run on any thread. Lifecycle: valid until the handler returns; a handler answers exactly once,
 * either with {@link #respond} or by opening an event stream. Response headers must be set before.
 *
 * <p>Auth, CORS, the body size limit and security headers have already been applied when a handler
 * runs.
 */
public interface HttpExchange {

    /** The request method, upper case. */
    String method();

    /** The request path, decoded, without query. */
    String path();

    /** A path parameter of the matched template; throws {@link IllegalArgumentException} if unknown. */
    String pathParam(String name);

    /** The first value of a query parameter. */
    Optional<String> query(String name);

    /** Every value of a query parameter, in order. */
    List<String> queryAll(String name);

    /** The first value of a request header (case-insensitive name). */
    Optional<String> header(String name);

    /**
     * The request body parsed as JSON. Malformed JSON or an empty body throws
     * {@link HttpStatusException} with code {@code invalid_json}; a body over the limit throws one
     * with code {@code body_too_large}. The body is read once and cached.
     */
    JsonNode body();

    /**
     * The request body as it arrives, for a route registered with {@link Routes#upload}: reads block until
     * bytes come, at the pace the server asks of every body (408 {@code request_timeout} when it stalls), and
     * past the route's limit throw {@link HttpStatusException} 413 {@code body_too_large} (an I/O failure of
     * the client's is 400 {@code invalid_body}). Once per exchange, and not with {@link #body()}; closing it
     * early leaves the rest for the server to discard. The default refuses.
     */
    default java.io.InputStream bodyStream() {
        throw new UnsupportedOperationException("this exchange has no streamed body");
    }

    /** The body bound to {@code type} with the plugin's mapper; binding errors are a 400. */
    <T> T bodyAs(Class<T> type);

    /** Who sent the request: the name and policy of the key it presented ({@link Caller}). */
    Caller caller();

    /** The request id, also sent as {@code X-Request-Id} and shown in logs. */
    String requestId();

    /** Sets a response header; a handler-set value replaces any default of the platform. */
    HttpExchange header(String name, String value);

    /** Answers with {@code status} and a JSON body ({@code application/json; charset=utf-8}). */
    void respond(int status, JsonNode body);

    /** Answers with {@code status} and no body. */
    void respond(int status);

    /**
     * Answers with {@code status} and a body that is not JSON (metrics text, a page, a file), sent with
     * {@code contentType} as given.
     */
    void respond(int status, String contentType, byte[] body);

    /**
     * Answers with {@code status} and {@code length} bytes read from {@code content} (a file), written as
     * they are read, never whole in memory; {@code content} is closed after. The default reads it whole and
     * calls {@link #respond(int, String, byte[])}.
     *
     * @throws java.io.IOException when {@code content} cannot be read (the answer is then cut short)
     */
    default void respond(int status, String contentType, long length, java.io.InputStream content)
            throws java.io.IOException {
        try (content) {
            respond(status, contentType, content.readNBytes((int) Math.min(length, Integer.MAX_VALUE - 8)));
        }
    }

    /**
     * Starts a {@code text/event-stream} response (status 200 plus the SSE headers) and returns its
     * writer. The stream is confined to the calling thread.
     */
    EventStream openEventStream();

    /** Registers a callback for when the client disconnects before the response is complete. */
    void onClientGone(Runnable callback);
}
