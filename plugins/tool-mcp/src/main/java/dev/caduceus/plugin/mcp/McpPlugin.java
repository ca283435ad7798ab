package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.PlatformPlugin;

/**
 * The {@code tool-mcp} plugin: the tools of the MCP servers configured in {@code mcp_servers}.
 * Lifecycle: one instance per boot, started and stopped by the host on its boot thread.
 */
public final class McpPlugin implements PlatformPlugin {
}
