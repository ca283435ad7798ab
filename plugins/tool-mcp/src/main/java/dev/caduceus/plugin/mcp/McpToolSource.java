package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolSource;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The configured servers' tools as one {@link ToolSource} ({@code mcp}): each server's tools under its
 * toolset {@code mcp-<server>}, and the toolset {@code mcp} over all of them, offered with the default
 * {@code agent.toolsets}. A server's toolset is listed (empty) while it has not connected, so that
 * {@code agent.toolsets} may name it at boot; a connected server that offers no tool (all filtered
 * out) has none. Also the {@code mcp} health check: degraded while an enabled server is unavailable.
 *
 * <p>Threading: {@link #snapshot()} is a volatile read of an immutable snapshot, rebuilt by
 * {@link #refresh()} whenever a server's state changes. Lifecycle: one per plugin start.
 */
final class McpToolSource implements ToolSource {
    static final String ID = "mcp";

    private final List<ServerLink> links = new ArrayList<>();
    private volatile Snapshot snapshot = Snapshot.empty();

    /** Adds a server; called before the first {@link #refresh()}, on the start thread. */
    void add(ServerLink link) {
        links.add(link);
    }

    List<ServerLink> links() {
        return List.copyOf(links);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Snapshot snapshot() {
        return snapshot;
    }

    @Override
    public Set<String> offeredByDefault() {
        return Set.of(ToolNames.ALL_TOOLSET);
    }

    /** Rebuilds the snapshot from every server's state. */
    synchronized void refresh() {
        var tools = new ArrayList<Tool>();
        var toolsets = new ArrayList<ToolsetSpec>();
        var servers = new ArrayList<Server>();
        var included = new ArrayList<String>();
        for (var link : links) {
            var config = link.config();
            var state = link.state();
            servers.add(new Server(config.name(), state.transport(), state.status(),
                    state.tools().stream().map(t -> t.spec().name()).toList(), state.reason()));
            if (state.status() == Status.DISABLED) continue;
            if (state.connected() && state.tools().isEmpty()) continue;
            String toolset = ToolNames.toolset(config.name());
            toolsets.add(new ToolsetSpec(toolset, "Tools of the MCP server '" + config.name() + "'",
                    state.tools().stream().map(t -> t.spec().name()).toList(), List.of()));
            included.add(toolset);
            tools.addAll(state.tools());
        }
        toolsets.add(new ToolsetSpec(ToolNames.ALL_TOOLSET, "Tools of every configured MCP server", List.of(), included));
        snapshot = new Snapshot(tools, toolsets, servers);
    }

    /** The {@code mcp} check of {@code /health/detailed}. */
    HealthChecks.Result health() {
        var servers = new LinkedHashMap<String, Object>();
        boolean ok = true;
        for (var link : links) {
            var state = link.state();
            var detail = new LinkedHashMap<String, Object>();
            detail.put("status", state.status().wire());
            detail.put("transport", state.transport());
            detail.put("tools", state.tools().size());
            if (state.reason() != null && state.status() != Status.DISABLED) detail.put("reason", state.reason());
            servers.put(link.config().name(), detail);
            if (state.status() == Status.UNAVAILABLE) ok = false;
        }
        Map<String, Object> details = Map.of("servers", servers);
        return ok ? HealthChecks.Result.healthy(details) : HealthChecks.Result.degraded(details);
    }
}
