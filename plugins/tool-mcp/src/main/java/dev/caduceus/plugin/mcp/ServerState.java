package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolSource;
import java.util.List;

/**
 * What one server offers at one moment, for the source's snapshot. Immutable.
 *
 * @param status    its state
 * @param transport {@code stdio}, {@code http} or {@code sse}
 * @param reason    why it is unavailable or disabled; null otherwise
 * @param tools     its tools now (kept while a stdio server that had connected is down: a call restarts it)
 * @param connected whether it has ever connected (a server whose tools are all filtered out then has no toolset)
 */
record ServerState(ToolSource.Status status, String transport, String reason, List<Tool> tools, boolean connected) {
    ServerState {
        tools = List.copyOf(tools);
    }
}
