/**
 * The {@code tool-mcp} plugin: MCP servers' tools as agent tools. Start at {@link dev.caduceus.plugin.mcp.McpPlugin}.
 */
package dev.caduceus.plugin.mcp;
