package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.List;

/**
 * Everything the started plugins contributed (boot step 5), in start order, not yet checked for
 * collisions: {@link Registries#freeze} does that. Immutable.
 */
public record Contributions(List<Contribution<EndpointFamily>> endpoints,
                            List<Contribution<Tool>> tools,
                            List<Contribution<ToolsetSpec>> toolsets,
                            List<Contribution<ModelProvider>> modelProviders,
                            List<Contribution<AgentRuntime>> agentRuntimes,
                            List<Contribution<Object>> services,
                            List<Contribution<dev.caduceus.spi.tool.ToolSource>> toolSources) {
    public Contributions {
        endpoints = List.copyOf(endpoints);
        tools = List.copyOf(tools);
        toolsets = List.copyOf(toolsets);
        modelProviders = List.copyOf(modelProviders);
        agentRuntimes = List.copyOf(agentRuntimes);
        services = List.copyOf(services);
        toolSources = List.copyOf(toolSources);
    }
}
