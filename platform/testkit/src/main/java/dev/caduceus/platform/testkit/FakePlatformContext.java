package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.platform.host.json.Json;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PluginInfo;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.store.PluginDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link PlatformContext} for plugin unit tests: the host's real JSON mapper, a fixed clock, and
 * fakes for everything else, each replaceable through the builder. A service that was not given
 * throws {@link IllegalStateException} naming the builder method to call. Immutable; thread-safe
 * as far as the given services are.
 */
public final class FakePlatformContext implements PlatformContext {
    private final dev.caduceus.platform.host.metrics.MetricsRegistry metricsRegistry = new dev.caduceus.platform.host.metrics.MetricsRegistry();
    private final Builder b;

    private FakePlatformContext(Builder builder) {
        this.b = builder;
    }

    public static Builder builder(String pluginId) {
        return new Builder(pluginId);
    }

    @Override public PluginInfo plugin() { return b.plugin; }

    @Override public PluginConfig config() { return require(b.config, "config"); }

    @Override public GlobalConfig global() { return b.global; }

    /** The variables given to {@link Builder#sectionEnv} (the environment sections are read from). */
    @Override public Optional<String> environment(String name) { return Optional.ofNullable(b.sectionEnv.get(name)); }

    @Override public ObjectMapper json() { return b.json; }

    @Override public PluginDatabase database() { return require(b.database, "database"); }

    @Override public Scheduler scheduler() { return b.scheduler; }

    @Override public Clock clock() { return b.clock; }

    @Override public PluginConfig section(String name) {
        if (name.equals("tools")) return b.toolsConfig;
        return PluginConfigImpl.section(name, ConfigLoader.load(b.sectionEnv, Optional.empty(), Map.of()).config().tree());
    }

    @Override public HealthChecks health() { return b.health; }

    @Override public Runs runs() { return require(b.runs, "runs"); }


    @Override public <T> Optional<T> service(Class<T> type) { return Optional.ofNullable(b.services.get(type)).map(type::cast); }
    @Override public <T> List<T> services(Class<T> type) { return service(type).map(List::of).orElse(List.of()); }

    @Override public Sessions sessions() { return require(b.sessions, "sessions"); }


    @Override public Deployment deployment() { return b.deployment; }

    @Override public dev.caduceus.spi.model.Models models() { return require(b.models, "models"); }

    /** The plugin's metrics on a real registry of this context's own ({@link #scrapeMetrics()} reads it). */
    @Override public dev.caduceus.spi.metrics.Metrics metrics() { return metricsRegistry.plugin(plugin().id()); }

    /** Everything recorded through {@link #metrics()}, in the Prometheus text format. */
    public String scrapeMetrics() {
        return new String(metricsRegistry.scrape(null).body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The given client, or else the host's real one with no proxies (made on first use, daemon threads). */
    @Override public synchronized dev.caduceus.spi.outbound.OutboundHttp outbound() {
        if (b.outbound == null)
            b.outbound = new dev.caduceus.platform.host.outbound.OutboundClient(
                    dev.caduceus.platform.host.outbound.ProxyRules.direct(), "caduceus-test");
        return b.outbound;
    }

    private static <T> T require(T value, String name) {
        if (value == null) throw new IllegalStateException("FakePlatformContext: call builder()." + name + "(...) first");
        return value;
    }

    /** Builds a {@link FakePlatformContext}; every setter is optional. */
    public static final class Builder {
        private PluginInfo plugin;
        private PluginConfig config;
        private GlobalConfig global;
        private ObjectMapper json = Json.newMapper();
        private PluginDatabase database;
        private Scheduler scheduler = new ManualScheduler();
        private Clock clock = Clock.fixed(Instant.parse("2026-01-15T09:00:00Z"), ZoneOffset.UTC);
        private HealthChecks health = new FakeHealthChecks();
        private Runs runs;
        private final Map<Class<?>, Object> services = new HashMap<>();
        private Sessions sessions;
        private Deployment deployment = FakeDeployment.empty();
        private dev.caduceus.spi.model.Models models;
        private dev.caduceus.spi.outbound.OutboundHttp outbound;
        private PluginConfig toolsConfig;
        private final Map<String, String> sectionEnv = new HashMap<>();

        private Builder(String pluginId) {
            var home = Path.of(System.getProperty("java.io.tmpdir"), "caduceus-test-home");
            plugin = new PluginInfo(pluginId, "1.0.0", home.resolve("plugins").resolve(pluginId + ".jar"),
                    home.resolve("plugin-data").resolve(pluginId));
            global = new GlobalConfig("hermes-agent", home, home.resolve("workspace"), "1.0.0", 10, 30,
                    List.of("hermes-api-server"), 90, false, List.of(home));
            sectionEnv.put("CADUCEUS_HOME", home.toString());
        }

        public Builder plugin(PluginInfo v) { plugin = v; return this; }
        public Builder config(PluginConfig v) { config = v; return this; }

        /**
         * This plugin's settings ({@code key -> value}, keys relative to {@code plugins.<id>}, dotted
         * for nesting), read through the host's real loader as if set in the environment.
         */
        public Builder config(Map<String, String> settings) {
            var env = new HashMap<String, String>();
            env.put("CADUCEUS_HOME", global.stateDir().toString());
            var id = plugin.id().toUpperCase(Locale.ROOT).replace('-', '_');
            settings.forEach((key, value) -> env.put("CADUCEUS__PLUGINS__" + id + "__"
                    + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
            config = ConfigLoader.load(env, Optional.empty(), Map.of()).config().pluginConfig(plugin.id());
            return this;
        }
        public Builder global(GlobalConfig v) { global = v; return this; }
        public Builder json(ObjectMapper v) { json = v; return this; }
        public Builder database(PluginDatabase v) { database = v; return this; }
        public Builder scheduler(Scheduler v) { scheduler = v; return this; }
        public Builder clock(Clock v) { clock = v; return this; }
        public Builder health(HealthChecks v) { health = v; return this; }
        public Builder runs(Runs v) { runs = v; return this; }
        /** The host's direct tool calls, found as {@code service(ToolCalls.class)}. */
        public Builder toolCalls(dev.caduceus.support.services.ToolCalls v) { return service(dev.caduceus.support.services.ToolCalls.class, v); }
        /** A service another plugin contributes (e.g. a {@code ResponseHistory}); absent unless given. */
        public <T> Builder service(Class<T> type, T v) { services.put(type, v); return this; }
        public Builder sessions(Sessions v) { sessions = v; return this; }
        public Builder deployment(Deployment v) { deployment = v; return this; }
        public Builder models(dev.caduceus.spi.model.Models v) { models = v; return this; }
        public Builder outbound(dev.caduceus.spi.outbound.OutboundHttp v) { outbound = v; return this; }

        /**
         * The shared {@code tools.*} settings ({@code key -> value}, keys relative to {@code tools},
         * e.g. {@code terminal.timeout}), read through the host's real loader.
         */
        public Builder toolsConfig(Map<String, String> settings) {
            var env = new HashMap<String, String>();
            env.put("CADUCEUS_HOME", global.stateDir().toString());
            settings.forEach((key, value) -> env.put("CADUCEUS__TOOLS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
            toolsConfig = PluginConfigImpl.section("tools", ConfigLoader.load(env, Optional.empty(), Map.of()).config().tree());
            return this;
        }

        /**
         * Global settings ({@code dotted.key -> value}, e.g. {@code chat.tool_progress_events}), read
         * through the host's real loader as if set in the environment; replaces {@link #global(GlobalConfig)}.
         */
        public Builder globalConfig(Map<String, String> settings) {
            var env = new HashMap<String, String>();
            env.put("CADUCEUS_HOME", global.stateDir().toString());
            settings.forEach((key, value) -> env.put("CADUCEUS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
            global = ConfigLoader.load(env, Optional.empty(), Map.of()).config().global(global.version());
            return this;
        }

        /** Settings of documented sections ({@code responses.max_stored -> 5}) for {@link #section(String)}. */
        public Builder sections(Map<String, String> settings) {
            settings.forEach((key, value) -> sectionEnv.put("CADUCEUS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
            return this;
        }

        public FakePlatformContext build() {
            if (config == null) config(Map.of());
            if (toolsConfig == null) toolsConfig(Map.of());
            return new FakePlatformContext(this);
        }
    }
}
