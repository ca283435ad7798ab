/**
 * The {@code endpoint-mcp} plugin: this deployment's tools served over MCP (streamable HTTP, stateless:
 * {@code POST /mcp}, no SSE stream, no session), on the official Java SDK's stateless server with a
 * transport of our own on the host's {@link dev.caduceus.spi.http.HttpHandler}. Start at
 * {@link dev.caduceus.plugin.mcpserver.McpServerPlugin}, then {@code ExchangeTransport} (HTTP to JSON-RPC)
 * and {@code CallerTools} ({@code tools/list} and {@code tools/call} per caller). Threading: one virtual
 * thread per request; the in-flight call registry is the only shared mutable state.
 */
package dev.caduceus.plugin.mcpserver;
