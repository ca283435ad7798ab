package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import java.util.ArrayList;
import java.util.List;

/** Appends each started plugin's contributions, in start order. Boot thread only. */
final class ContributionCollector {
    private final List<Contribution<EndpointFamily>> endpoints = new ArrayList<>();
    private final List<Contribution<Tool>> tools = new ArrayList<>();
    private final List<Contribution<ToolsetSpec>> toolsets = new ArrayList<>();
    private final List<Contribution<ModelProvider>> modelProviders = new ArrayList<>();
    private final List<Contribution<AgentRuntime>> agentRuntimes = new ArrayList<>();
    private final List<Contribution<Object>> services = new ArrayList<>();
    private final List<Contribution<dev.caduceus.spi.tool.ToolSource>> toolSources = new ArrayList<>();

    void add(PluginStarter.Result result) {
        var c = result.contributions();
        endpoints.addAll(c.endpoints());
        tools.addAll(c.tools());
        toolsets.addAll(c.toolsets());
        modelProviders.addAll(c.modelProviders());
        agentRuntimes.addAll(c.agentRuntimes());
        services.addAll(c.services());
        toolSources.addAll(c.toolSources());
    }

    Contributions build() {
        return new Contributions(endpoints, tools, toolsets, modelProviders, agentRuntimes, services, toolSources);
    }
}
