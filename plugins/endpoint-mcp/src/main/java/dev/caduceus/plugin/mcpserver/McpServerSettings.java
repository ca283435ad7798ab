package dev.caduceus.plugin.mcpserver;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * The plugin's settings ({@code plugins.endpoint-mcp.*}), read once when the family is built. Immutable.
 *
 * @param toolsets  {@code toolsets}: the toolsets served to MCP clients; empty (the default) means the
 *                  deployment's {@code agent.toolsets}. A named key restricted to some toolsets sees
 *                  only those, whatever this says (the host applies the key's policy).
 * @param agentTool {@code agent_tool}: whether to offer the tool {@code agent}, which runs one whole
 *                  agent turn as the caller's key and returns its final answer (default true)
 */
record McpServerSettings(List<String> toolsets, boolean agentTool) {
    private static final String OWN = "plugins.endpoint-mcp.";

    static final Setting TOOLSETS = Setting.list(OWN + "toolsets", null,
            "the toolsets served on /mcp (unset or empty: agent.toolsets); a key limited to some toolsets sees only those");

    static final Setting AGENT_TOOL = Setting.bool(OWN + "agent_tool", true,
            "offer the MCP tool 'agent', which runs one agent turn as the caller's key and returns its answer");

    /** Both, as {@link McpServerPlugin#settings} declares them. */
    static final List<Setting> ALL = List.of(TOOLSETS, AGENT_TOOL);

    McpServerSettings {
        toolsets = List.copyOf(toolsets);
    }

    static McpServerSettings from(PlatformContext ctx) {
        var toolsets = ctx.config().list(own(TOOLSETS), List.of()).stream()
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
        return new McpServerSettings(toolsets, ctx.config().bool(own(AGENT_TOOL), true));
    }

    private static String own(Setting setting) {
        return setting.key().substring(OWN.length());
    }
}
