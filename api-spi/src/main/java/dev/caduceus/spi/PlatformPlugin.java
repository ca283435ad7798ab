package dev.caduceus.spi;

import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolSource;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;

/**
 * The one entry point of a plugin jar, found with {@link java.util.ServiceLoader} through the jar's
 * {@code META-INF/services/dev.caduceus.spi.PlatformPlugin} file (one line, one public class with a
 * public no-argument constructor).
 *
 * <p>Lifecycle: the platform instantiates the class once, calls {@link #start}, then each
 * contribution method exactly once with the same context, and {@link #stop} at shutdown in reverse
 * start order. A plugin overrides only what it contributes; every method has a default so that new
 * kinds of contribution never break old plugins.
 *
 * <p>Threading: all methods are called on the single boot (or shutdown) thread, with the thread
 * context class loader set to the plugin's own loader. Objects returned from contribution methods
 * are used afterwards from many threads and must be thread-safe.
 */
public interface PlatformPlugin {

    /**
     * The configuration keys this plugin reads outside its own {@code plugins.<id>} subtree or inside
     * it (sections such as {@code chat.*}), so that the host checks their values at boot, knows them
     * (no "unknown key" warning) and lists them in the configuration reference. Called once, before
     * {@link #start}. A key the host or another plugin declares too must be declared the same way.
     */
    default List<PluginConfig.Setting> settings() { return List.of(); }

    /** Prepares the plugin. Its migrations have already run. Throwing stops the boot (strict mode). */
    default void start(PlatformContext ctx) throws Exception {}

    /** HTTP endpoint families: each owns the routes under one base path. */
    default List<EndpointFamily> endpoints(PlatformContext ctx) { return List.of(); }

    /** Tools the agent may call. Names must be unique across all plugins. */
    default List<Tool> tools(PlatformContext ctx) { return List.of(); }

    /**
     * Tools whose set changes while the server runs (an MCP server's tools), asked for a snapshot
     * whenever the catalog is needed. Their names must not clash with other tools; a clash leaves the
     * source's tool out.
     */
    default List<ToolSource> toolSources(PlatformContext ctx) { return List.of(); }

    /** Named groups of tools. Names must be unique across all plugins. */
    default List<ToolsetSpec> toolsets(PlatformContext ctx) { return List.of(); }

    /** Upstream model providers. */
    default List<ModelProvider> modelProviders(PlatformContext ctx) { return List.of(); }

    /** Alternative agent runtimes (for example the relay). */
    default List<AgentRuntime> agentRuntimes(PlatformContext ctx) { return List.of(); }

    /**
     * Services other plugins (and the platform's applications) find with
     * {@link PlatformContext#service}, each under the name of every interface it implements outside
     * the JDK. The interface is not part of this SPI: the two sides share it by name (each bundling
     * its own copy, for example from {@code caduceus-plugin-support}), and the host carries a call
     * across as JSON where their classes differ. At most one plugin of a deployment may contribute a
     * service of one type; a second fails the boot.
     */
    default List<Object> services(PlatformContext ctx) { return List.of(); }

    /** Releases what {@link #start} acquired. Called once, after HTTP has stopped. */
    default void stop() throws Exception {}
}
