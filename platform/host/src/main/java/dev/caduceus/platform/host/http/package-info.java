/**
 * The HTTP pipeline: Jetty 12 core handlers in order (default headers, route
 * match, origin gate, body limit, auth) in front of plugin {@code HttpHandler}s, with every error as
 * the contract's JSON envelope. Start at {@link dev.caduceus.platform.host.http.HttpServer} and
 * {@link dev.caduceus.platform.host.http.Router}. Threading: every request runs on its own virtual thread;
 * the router and pipeline steps are immutable and shared.
 */
package dev.caduceus.platform.host.http;
