package dev.caduceus.plugin.relay;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * Contributes the {@code relay} {@link AgentRuntime}. The host selects it when
 * {@code gateway.proxy_url} ({@code GATEWAY_PROXY_URL}) is set or {@code agent.runtime: relay};
 * otherwise it is contributed and never called.
 */
public final class RelayPlugin implements PlatformPlugin {
    private volatile RelayRuntime runtime;

    /** What {@link RelaySettings} reads besides the host's {@code gateway.*} keys. */
    @Override
    public List<Setting> settings() {
        return List.of(RelaySettings.TOOL_PROGRESS);
    }

    @Override
    public List<AgentRuntime> agentRuntimes(PlatformContext ctx) {
        var created = new RelayRuntime(RelaySettings.from(ctx), ctx.json());
        runtime = created;
        return List.of(created);
    }

    @Override
    public void stop() {
        var created = runtime;
        if (created != null) created.close();
    }
}
