/**
 * Outbound HTTP, owned by the host: one client stack for the model provider, the relay and the web
 * tools ({@link dev.caduceus.platform.host.outbound.OutboundClient}, on Jetty's client, whose TCP
 * connections read on virtual threads through {@link dev.caduceus.platform.host.outbound.VirtualThreadEndPoint}
 * instead of a selector thread); which proxy a request goes through
 * ({@link dev.caduceus.platform.host.outbound.ProxyRules}, from {@code HTTPS_PROXY}/{@code HTTP_PROXY}/
 * {@code ALL_PROXY}/{@code NO_PROXY} as curl and the Python and Go clients read them); the egress guard
 * ({@link dev.caduceus.platform.host.outbound.EgressPolicy}, checked by
 * {@link dev.caduceus.platform.host.outbound.GuardedResolver} on the addresses a connection will use).
 */
package dev.caduceus.platform.host.outbound;
