/**
 * Model routes: the names a request's {@code model} may pick ({@code model.routes}), each with its deployments
 * (upstreams serving that model) and the routes it falls back to. {@link dev.caduceus.platform.runtime.routing.RoutedProvider}
 * balances a call over a route's deployments, fails over to another before any token reached the client, puts a
 * failing deployment in cooldown, and falls back to the next route; {@link dev.caduceus.platform.runtime.routing.RouteTable}
 * reads the configuration.
 */
package dev.caduceus.platform.runtime.routing;
