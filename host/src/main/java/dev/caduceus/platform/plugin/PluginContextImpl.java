package dev.caduceus.platform.plugin;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.config.PluginConfigImpl;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PluginInfo;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.agent.ResponseHistory;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.model.ModelSettings;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.tool.ToolCatalog;
import java.time.Clock;
import java.util.Optional;

/**
 * One plugin's {@link PlatformContext}: host services made once in {@code Platform} and handed to
 * the plugin. The "after boot" services ({@code tools()}, {@code deployment()}, {@code runs()},
 * {@code sessions()}, {@code models()}, {@code responseHistory()}) come from {@link LateServices} and throw
 * {@link IllegalStateException} before.
 */
public record PluginContextImpl(PluginInfo plugin, PluginConfigImpl config, GlobalConfig global, ObjectMapper json,
                                PluginDatabase database, Scheduler scheduler, Clock clock, HealthChecks health,
                                ModelSettings modelSettings, PluginConfigImpl toolsConfig,
                                dev.caduceus.platform.config.ConfigTree configTree, LateServices late)
        implements PlatformContext {

    @Override
    public dev.caduceus.spi.config.PluginConfig section(String name) {
        return PluginConfigImpl.section(name, configTree);
    }

    @Override
    public ToolCatalog tools() {
        return late.tools();
    }

    @Override
    public Runs runs() {
        return late.runs();
    }

    @Override
    public dev.caduceus.spi.model.Models models() {
        return late.models();
    }

    @Override
    public Sessions sessions() {
        return late.sessions();
    }

    @Override
    public Optional<ResponseHistory> responseHistory() {
        return late.responseHistory();
    }

    @Override
    public Deployment deployment() {
        return late.deployment();
    }
}
