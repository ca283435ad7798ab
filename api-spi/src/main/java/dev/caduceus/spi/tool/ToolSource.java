package dev.caduceus.spi.tool;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * Tools whose set changes while the server runs: the tools of remote tool servers (MCP servers)
 * that connect after boot, fail and come back, or announce that their tool list changed. A plugin
 * contributes a source through {@link dev.caduceus.spi.PlatformPlugin#toolSources}; the host asks it
 * for its {@link #snapshot()} whenever it needs the catalog (each turn, {@code /v1/capabilities},
 * {@code caduceus plugins}), so a change is seen by the next turn. Tools with the name of a tool a
 * plugin contributes at boot, or of another source's tool, are left out (and logged once).
 *
 * <p>Threading: {@link #snapshot()} is called from many threads at once and must be cheap (return a
 * snapshot kept in a volatile field, not compute one). Lifecycle: asked from the end of boot until the
 * plugin stops.
 */
public interface ToolSource {

    /**
     * The source's id, such as {@code mcp}: its servers are listed in {@code /v1/capabilities} as
     * {@code <id>_servers}. Lowercase letters, digits and {@code _}.
     */
    String id();

    /** The tools, toolsets and servers right now. */
    Snapshot snapshot();

    /**
     * Toolsets of this source offered when {@code agent.toolsets} is left at its default (the
     * {@code mcp} toolset: a configured MCP server's tools are offered without naming them again).
     * Fixed after the plugin's start.
     */
    default Set<String> offeredByDefault() { return Set.of(); }

    /**
     * What a source offers at one moment. Immutable.
     *
     * @param tools    the tools, with unique names
     * @param toolsets the toolsets over them (and possibly over other plugins' tools); a toolset of a
     *                 server that is not connected yet should still be listed, empty, so that
     *                 {@code agent.toolsets} may name it at boot
     * @param servers  each server behind the source, for operators
     */
    record Snapshot(List<Tool> tools, List<ToolsetSpec> toolsets, List<Server> servers) {
        public Snapshot {
            tools = List.copyOf(tools);
            toolsets = List.copyOf(toolsets);
            servers = List.copyOf(servers);
        }

        /** Nothing yet. */
        public static Snapshot empty() {
            return new Snapshot(List.of(), List.of(), List.of());
        }
    }

    /**
     * One server behind a source. Immutable.
     *
     * @param name      the configured name
     * @param transport how it is reached ({@code stdio}, {@code http}, {@code sse})
     * @param status    what it is doing now
     * @param tools     the names of the tools it contributes now (in {@link Snapshot#tools()})
     * @param reason    why it is unavailable or disabled, for operators (never a secret); null otherwise
     */
    record Server(String name, String transport, Status status, List<String> tools, String reason) {
        public Server {
            requireNonNull(name, "name");
            requireNonNull(transport, "transport");
            requireNonNull(status, "status");
            tools = List.copyOf(tools);
        }
    }

    /** A server's state. */
    enum Status {
        /** Connecting for the first time, or again after a failure. */
        CONNECTING,
        /** Connected; its tools are offered. */
        CONNECTED,
        /** Not reachable; retried with backoff, see the reason. */
        UNAVAILABLE,
        /** {@code enabled: false} in the configuration. */
        DISABLED;

        /** The wire name: {@code connecting}, {@code connected}, {@code unavailable}, {@code disabled}. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
