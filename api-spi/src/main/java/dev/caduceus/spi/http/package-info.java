/**
 * HTTP for plugins without Jetty types: an {@link EndpointFamily} registers {@link HttpHandler}s on
 * {@link Routes}; handlers talk to the client through {@link HttpExchange} and {@link EventStream}.
 * Threading: every handler call runs on its own virtual thread, so blocking is fine.
 */
package dev.caduceus.spi.http;
