package dev.caduceus.platform.host.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.ConfigTree;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PluginInfo;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.model.Models;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.store.PluginDatabase;
import java.time.Clock;
import java.util.Map;
import java.util.List;
import java.util.Optional;

/**
 * One plugin's {@link PlatformContext}: host services made once in {@code Platform} and handed to
 * the plugin. The "after boot" services ({@code deployment()}, {@code runs()}, {@code sessions()},
 * {@code models()}, {@code service()}) come from {@link LateServices} and throw
 * {@link IllegalStateException} before.
 */
public record PluginContextImpl(PluginInfo plugin, PluginConfigImpl config, GlobalConfig global, ObjectMapper json,
                                PluginDatabase database, Scheduler scheduler, Clock clock, HealthChecks health,
                                ConfigTree configTree, OutboundHttp outbound, LateServices late,
                                Map<String, String> env, dev.caduceus.spi.metrics.Metrics metrics,
                                dev.caduceus.spi.webhook.Webhooks webhooks)
        implements PlatformContext {

    @Override
    public Optional<String> environment(String name) {
        return Optional.ofNullable(env.get(name));
    }

    @Override
    public PluginConfig section(String name) {
        return PluginConfigImpl.section(name, configTree);
    }

    @Override
    public Runs runs() {
        return late.runs();
    }


    @Override
    public Models models() {
        return late.models();
    }

    @Override
    public Sessions sessions() {
        return late.sessions();
    }

    @Override
    public Deployment deployment() {
        return late.deployment();
    }

    @Override
    public <T> Optional<T> service(Class<T> type) {
        return late.services().find(type);
    }

    @Override
    public <T> List<T> services(Class<T> type) {
        return late.services().all(type);
    }
}
