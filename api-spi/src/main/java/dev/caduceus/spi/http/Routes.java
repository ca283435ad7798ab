package dev.caduceus.spi.http;

/**
 * Registers routes for one {@link EndpointFamily}.
 *
 * <p>Templates are literal segments and {@code {name}} parameters, one per segment:
 * {@code /v1/runs/{run_id}/events}. A {@code name} is the route's capability name shown under
 * {@code endpoints} in {@code /v1/capabilities}; {@code null} keeps it out of that list.
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
}
