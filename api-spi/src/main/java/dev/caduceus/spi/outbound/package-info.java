/**
 * The host's one outbound HTTP client ({@link OutboundHttp}): what a plugin uses to call a model
 * upstream, a remote server or a URL the agent names, with the deployment's proxies, TLS settings,
 * timeouts and an egress policy. A leaf package: it depends on the JDK only.
 */
package dev.caduceus.spi.outbound;
