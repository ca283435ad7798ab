package dev.caduceus.spi;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.model.Models;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.store.PluginDatabase;
import java.time.Clock;
import java.util.Optional;

/**
 * The host's services, as seen by one plugin. Each plugin gets its own context.
 *
 * <p>Lifecycle: handed to {@link PlatformPlugin#start} and to every contribution method, and valid
 * until the plugin is stopped. Services marked "after boot" may be fetched during start but throw
 * {@link IllegalStateException} when used before every plugin has contributed (the registries are
 * frozen then, just before HTTP starts).
 *
 * <p>Threading: the context and every service it returns are thread-safe.
 */
public interface PlatformContext {

    /** Identity of this plugin. */
    PluginInfo plugin();

    /** This plugin's configuration subtree, {@code plugins.<id>.*}. */
    PluginConfig config();

    /**
     * A top-level configuration section other than {@code plugins}, keys relative to it: the plugin
     * that owns a section reads its settings here ({@code section("responses").integer("max_stored", 10000)};
     * {@code section("tools")} for the tool families' shared settings, {@code section("model")} for a
     * model provider). May contain secrets.
     */
    PluginConfig section(String name);

    /**
     * A variable of the environment the host started with: the process environment over
     * {@code $CADUCEUS_HOME/.env}. For {@code ${VAR}} references in a plugin's own settings (the
     * {@code mcp_servers} section uses them, as Hermes does); may be a secret, so never log it.
     */
    Optional<String> environment(String name);

    /** The host's settings a plugin may read (no secrets). */
    GlobalConfig global();

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
    Runs runs();


    /** Session transcripts ({@code X-Hermes-Session-Id} continuity), written by the host after each turn. */
    Sessions sessions();

    /**
     * Plain upstream model calls that are not agent runs (after boot): one call, no tools, no
     * system prompt, no transcript, no concurrency slot.
     */
    Models models();

    /**
     * The host's HTTP client for calls out (model upstreams, remote servers, URLs the agent names):
     * the deployment's proxies and TLS settings, HTTP/2, and the egress policy the caller chooses per
     * request. The only HTTP client a plugin should need.
     */
    OutboundHttp outbound();

    /**
     * The deployment's webhooks: check the one a request names, and write an event's deliveries in this
     * plugin's own transaction (a job's run ended, a background response ended).
     */
    dev.caduceus.spi.webhook.Webhooks webhooks();

    /** What this deployment serves: plugins, routes, features, tools, runtime mode (after boot). */
    Deployment deployment();

    /**
     * This plugin's counters, histograms and gauges on {@code GET /metrics}, named
     * {@code caduceus_<plugin id>_<name>}. Usable from {@code start} on.
     */
    dev.caduceus.spi.metrics.Metrics metrics();

    /**
     * The service of {@code type} another plugin contributes through {@link PlatformPlugin#services}
     * (for example {@code service(ResponseHistory.class)} with the interface from
     * {@code caduceus-plugin-support}); empty when no started plugin does. After boot. The match is
     * by the interface's name: arguments and results whose classes differ between the two plugins'
     * copies are converted through JSON, so keep such interfaces to JDK, SPI and record types.
     * Throws {@link IllegalStateException} when several plugins offer one (ask {@link #services}).
     */
    <T> Optional<T> service(Class<T> type);

    /**
     * Every started plugin's service of {@code type} (matched by name as in {@link #service}), in
     * plugin start order: for a type several plugins may offer, such as batch distributions. After boot.
     */
    default <T> java.util.List<T> services(Class<T> type) {
        throw new UnsupportedOperationException("services(Class) is not supported by this host");
    }
}
