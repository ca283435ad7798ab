package dev.caduceus.spi;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolSource;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What this deployment serves, frozen at boot: the source of {@code GET /v1/capabilities}. The
 * exception are the tools and toolsets of {@linkplain ToolSource tool sources} (MCP servers), which
 * {@link #tools()}, {@link #tool}, {@link #toolsets()} and {@link #resolve} include as they are now.
 *
 * <p>Fixed after boot except for those; thread-safe.
 */
public interface Deployment {

    /** Every plugin jar found, started or not, ordered by id. */
    List<PluginStatus> plugins();

    /** Every served route, in registration order. */
    List<RouteInfo> routes();

    /** Feature flags contributed by the started endpoint families, merged (a deep copy). */
    ObjectNode features();

    /**
     * Feature flags of the started endpoint families whose id {@code family} accepts, merged (a deep
     * copy): what a caller restricted to some families may use.
     */
    ObjectNode features(java.util.function.Predicate<String> family);

    /** The selected agent runtime id: {@code local}, or a plugin runtime such as {@code relay}. */
    String runtimeMode();

    /** Whether a CORS origin allowlist is configured. */
    boolean corsEnabled();

    /** Every contributed tool, ordered by name. */
    List<Tool> tools();

    /** A tool by name. */
    Optional<Tool> tool(String name);

    /** The contributed tool sources (MCP servers and the like), ordered by id. */
    List<ToolSource> toolSources();

    /** Every contributed toolset, ordered by name. */
    List<ToolsetSpec> toolsets();

    /**
     * The names of the tools a toolset resolves to, includes followed, tools no plugin provides left
     * out. Throws {@link IllegalArgumentException} for an unknown toolset (fail closed).
     */
    Set<String> resolve(String toolset);

    /** How a plugin ended up at boot. */
    enum State { STARTED, DISABLED, FAILED }

    /**
     * One plugin jar and what it contributes.
     *
     * @param kinds  what it contributed: {@code endpoints}, {@code tools}, {@code toolsets},
     *               {@code model_providers}, {@code agent_runtimes},
     *               {@code services}, {@code tool_sources}
     * @param reason why it is disabled or failed; {@code null} when started
     */
    record PluginStatus(String id, String version, State state, List<String> kinds, String reason) {
        public PluginStatus {
            requireNonNull(id, "id");
            requireNonNull(version, "version");
            requireNonNull(state, "state");
            kinds = List.copyOf(kinds);
        }
    }

    /**
     * One served route.
     *
     * @param name     the capability name ({@code chat_completions}, {@code run_events}); may be null
     * @param family   the endpoint family id, {@code core} for the platform's own routes
     * @param pluginId the contributing plugin, {@code core} for the platform
     */
    record RouteInfo(String method, String path, String name, String family, String pluginId) {
        public RouteInfo {
            requireNonNull(method, "method");
            requireNonNull(path, "path");
            requireNonNull(family, "family");
            requireNonNull(pluginId, "pluginId");
        }
    }
}
