/**
 * Outbound HTTP, as the host will own it (one client stack for the model provider, the relay and the
 * web tools): which proxy a request goes through ({@link dev.caduceus.platform.outbound.ProxyRules},
 * from {@code HTTPS_PROXY}/{@code HTTP_PROXY}/{@code ALL_PROXY}/{@code NO_PROXY} as curl and the
 * Python and Go clients read them). Values; thread-safe.
 */
package dev.caduceus.platform.outbound;
