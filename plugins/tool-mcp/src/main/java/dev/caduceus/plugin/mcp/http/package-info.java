/**
 * The MCP client's HTTP transports on the host's outbound client ({@code PlatformContext.outbound()}):
 * streamable HTTP (MCP 2025-03-26 and later), falling back to the older HTTP+SSE transport (2024-11-05)
 * when the server only speaks that. Start at {@link dev.caduceus.plugin.mcp.http.HttpTransports}.
 */
package dev.caduceus.plugin.mcp.http;
