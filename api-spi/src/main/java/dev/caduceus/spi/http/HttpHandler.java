package dev.caduceus.spi.http;

/**
 * Handles one request of a registered route.
 *
 * <p>Threading: called on a fresh virtual thread per request with the plugin's context class loader;
 * blocking is fine. Called concurrently for different requests.
 *
 * <p>Errors: throw {@link HttpStatusException} to answer with the contract's error JSON. Any other
 * exception is logged with the request id and answered with a generic 500. If the handler returns
 * without responding, the platform answers 204.
 */
@FunctionalInterface
public interface HttpHandler {
    void handle(HttpExchange exchange) throws Exception;
}
