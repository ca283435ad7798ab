package dev.caduceus.plugin.relay;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * Contributes the {@code relay} {@link AgentRuntime}. The host selects it when
 * {@code gateway.proxy_url} ({@code GATEWAY_PROXY_URL}) is set or {@code agent.runtime: relay};
 * otherwise it is contributed and never called. It holds no resources of its own: HTTP is the
 * host's client ({@code ctx.outbound()}), which the host stops.
 */
public final class RelayPlugin implements PlatformPlugin {

    /** What {@link RelaySettings} reads besides the host's {@code gateway.*} keys. */
    @Override
    public List<Setting> settings() {
        return List.of(RelaySettings.TOOL_PROGRESS);
    }

    @Override
    public List<AgentRuntime> agentRuntimes(PlatformContext ctx) {
        return List.of(new RelayRuntime(RelaySettings.from(ctx), ctx.json(), ctx.outbound()));
    }
}
