package dev.caduceus.spi.http;

/**
 * Registers routes for one {@link EndpointFamily}.
 *
 * <p>Templates are literal segments and {@code {name}} parameters, one per segment:
 * {@code /v1/runs/{run_id}/events}. A {@code name} is the route's capability name shown under
 * {@code endpoints} in {@code /v1/capabilities}; {@code null} keeps it out of that list.
 *
 * <p>Every route needs the bearer key, except those registered with {@link #publicGet}.
 *
 * <p>Threading and lifecycle: valid only during {@link EndpointFamily#routes}, on the boot thread.
 * A duplicate method and template, in this family or another, fails the boot.
 */
public interface Routes {

    /** Registers a handler for {@code method} (GET, POST, PATCH, DELETE, PUT) and {@code template}. */
    Routes route(String method, String template, String name, HttpHandler handler);

    default Routes get(String template, String name, HttpHandler handler) {
        return route("GET", template, name, handler);
    }

    default Routes post(String template, String name, HttpHandler handler) {
        return route("POST", template, name, handler);
    }

    default Routes patch(String template, String name, HttpHandler handler) {
        return route("PATCH", template, name, handler);
    }

    default Routes delete(String template, String name, HttpHandler handler) {
        return route("DELETE", template, name, handler);
    }

    /**
     * Registers a {@code POST} whose body is an upload: the handler reads it as it arrives with
     * {@link HttpExchange#bodyStream()} (never whole in memory, not counted against the server's body memory)
     * and it may be up to {@code maxBodyBytes} long, past {@code server.max_body_bytes}; a longer declared
     * length is answered 413 {@code body_too_large} before the handler runs, a longer streamed body when the
     * stream reaches the limit. The key is required, as for {@link #route}.
     *
     * <p>The default refuses: a host without streamed uploads throws {@link UnsupportedOperationException}.
     */
    default Routes upload(String template, String name, long maxBodyBytes, HttpHandler handler) {
        throw new UnsupportedOperationException("this host takes no uploads: " + template);
    }

    /**
     * Registers a {@code GET} route that answers without a bearer key, like {@code /health}: only for
     * content that holds no data, such as the static files of a web page that must load before its
     * user has pasted a key (the console's HTML, scripts and styles), or content whose handler checks a
     * capability of its own before it answers (a signed download link that expires). The handler sees
     * {@link Caller#ANONYMOUS}; no key's policy or rate limit applies, so it must never read or
     * change anything a key protects. Everything else the page does goes through the keyed routes.
     *
     * <p>The default refuses: a host that does not offer public plugin routes throws
     * {@link UnsupportedOperationException}, so a page never silently ends up behind the key.
     */
    default Routes publicGet(String template, String name, HttpHandler handler) {
        throw new UnsupportedOperationException("this host has no public plugin routes: " + template);
    }
}
