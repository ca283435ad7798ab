package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.Deployment;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of boot steps 3 to 5: the started plugins in start order, a report for every jar
 * (ordered by id), and the collected contributions. Immutable.
 */
public record BootedPlugins(List<StartedPlugin> started, List<PluginReport> plugins, Contributions contributions) {
    public BootedPlugins {
        started = List.copyOf(started);
        plugins = List.copyOf(plugins);
        Objects.requireNonNull(contributions, "contributions");
    }

    /** The plugins that were switched off, with the reason. */
    public List<PluginReport> disabled() {
        return plugins.stream().filter(p -> p.state() == Deployment.State.DISABLED).toList();
    }

    /** The plugins dropped in lenient mode, with the reason. */
    public List<PluginReport> failed() {
        return plugins.stream().filter(p -> p.state() == Deployment.State.FAILED).toList();
    }
}
