package dev.caduceus.spi;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.model.ModelSettings;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.tool.ToolCatalog;
import java.time.Clock;

/**
 * The host's services, as seen by one plugin. Each plugin gets its own context.
 *
 * <p>Lifecycle: handed to {@link PlatformPlugin#start} and to every contribution method, and valid
 * until the plugin is stopped. Services marked "after boot" may be fetched during start but throw
 * {@link IllegalStateException} when used before the registries are frozen (boot step 6).
 *
 * <p>Threading: the context and every service it returns are thread-safe.
 *
 * <p>Compatibility: a new service is added as a default method that throws
 * {@link UnsupportedOperationException}; signatures never change.
 */
public interface PlatformContext {

    /** Identity of this plugin. */
    PluginInfo plugin();

    /** This plugin's configuration subtree, {@code plugins.<id>.*}. */
    PluginConfig config();

    /** The documented global settings. */
    GlobalConfig global();

    /**
     * The shared {@code tools.*} section, keys relative to it ({@code terminal.timeout},
     * {@code web.search.max_results}): tool plugins read their family's settings here. Contains secrets
     * (search backend keys).
     */
    default PluginConfig toolsConfig() {
        throw new UnsupportedOperationException("toolsConfig() is not provided by this host");
    }

    /**
     * A documented top-level configuration section other than {@code plugins} ({@code responses},
     * {@code runs}, {@code sessions}, {@code idempotency}, …), keys relative to it: the endpoint
     * family that owns a section reads its settings here ({@code section("responses").integer("max_stored", 10000)}).
     */
    default PluginConfig section(String name) {
        throw new UnsupportedOperationException("section() is not provided by this host");
    }

    /** This plugin's copy of the host mapper (java.time support, ISO dates, unknown fields ignored). */
    ObjectMapper json();

    /** This plugin's tables; its migrations have been applied before {@code start}. */
    PluginDatabase database();

    /** Delayed and periodic tasks; they fire only after boot and are cancelled before {@code stop}. */
    Scheduler scheduler();

    /** The clock to use for every timestamp (tests pass a fixed one). */
    Clock clock();

    /** Registers readiness checks shown in {@code /health/detailed}. */
    HealthChecks health();

    /** Starts and observes agent runs (after boot). */
    default Runs runs() {
        throw new UnsupportedOperationException("runs() is not provided by this host");
    }

    /**
     * The stored Responses conversations, when a plugin contributes them ({@code endpoint-responses});
     * empty otherwise. After boot.
     */
    default java.util.Optional<dev.caduceus.spi.agent.ResponseHistory> responseHistory() {
        return java.util.Optional.empty();
    }

    /** Session transcripts ({@code X-Hermes-Session-Id} continuity), written by the host after each turn. */
    default Sessions sessions() {
        throw new UnsupportedOperationException("sessions() is not provided by this host");
    }

    /** The upstream model settings ({@code model.*}), for model-provider plugins. Contains a secret. */
    default ModelSettings modelSettings() {
        throw new UnsupportedOperationException("modelSettings() is not provided by this host");
    }

    /**
     * Plain upstream model calls that are not agent runs (after boot): one call, no tools, no
     * system prompt, no transcript, no concurrency slot.
     */
    default dev.caduceus.spi.model.Models models() {
        throw new UnsupportedOperationException("models() is not provided by this host");
    }

    /** The frozen catalog of tools, toolsets and distributions (after boot). */
    default ToolCatalog tools() {
        throw new UnsupportedOperationException("tools() is not provided by this host");
    }

    /** What this deployment serves: plugins, routes, features, runtime mode (after boot). */
    default Deployment deployment() {
        throw new UnsupportedOperationException("deployment() is not provided by this host");
    }
}
