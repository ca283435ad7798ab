package dev.caduceus.platform.server;

import dev.caduceus.platform.host.plugin.Registries;
import dev.caduceus.platform.host.plugin.ToolNotes;
import dev.caduceus.spi.Deployment;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The {@code caduceus plugins} report: every jar, its state, and what each started plugin contributes. */
final class PluginListing {
    private PluginListing() {}

    static void print(PrintWriter out, Registries registries) {
        var plugins = registries.plugins();
        if (plugins.isEmpty()) {
            out.println("No plugin jars found.");
            out.flush();
            return;
        }
        var notes = ToolNotes.of(registries);
        out.printf("%-28s %-16s %-9s %s%n", "PLUGIN", "VERSION", "STATE", "JAR");
        for (var plugin : plugins) {
            out.printf("%-28s %-16s %-9s %s%n", plugin.id(), plugin.version(),
                    plugin.state().name().toLowerCase(), plugin.jar());
            if (plugin.state() != Deployment.State.STARTED) {
                out.println("    reason: " + plugin.reason());
                continue;
            }
            for (var line : contributions(registries, plugin.id(), notes)) out.println("    " + line);
        }
        out.flush();
    }

    private static String availability(dev.caduceus.spi.tool.Tool tool, ToolNotes notes) {
        var note = notes.byTool().get(tool.spec().name());
        var noted = note == null ? "" : (note.warning() ? "\n        WARNING: " : "\n        ") + note.text();
        if (tool.available()) return noted;
        var reason = tool.unavailableReason();
        return "  unavailable" + (reason == null ? "" : ": " + reason) + noted;
    }

    private static List<String> contributions(Registries registries, String pluginId, ToolNotes notes) {
        var lines = new ArrayList<String>();
        registries.routes().stream().filter(r -> r.pluginId().equals(pluginId))
                .forEach(r -> lines.add("route  " + r.method() + " " + r.template()
                        + (r.name() == null ? "" : "  (" + r.name() + ")")));
        registries.toolEntries().stream().filter(t -> t.pluginId().equals(pluginId))
                .forEach(t -> lines.add("tool   " + t.value().spec().name() + "  [" + t.value().spec().toolset() + "]"
                        + availability(t.value(), notes)));
        var tools = registries.tools();
        var kinds = registries.kinds().getOrDefault(pluginId, List.of());
        if (kinds.contains("toolsets"))
            tools.toolsets().forEach(t -> lines.add("toolset " + t.name() + " -> " + tools.resolve(t.name())));
        registries.toolSources().stream().filter(s -> s.pluginId().equals(pluginId)).forEach(source -> {
            var bound = dev.caduceus.platform.host.plugin.BoundToolSource.of(source);
            var snapshot = bound.snapshot();
            for (var server : snapshot.servers())
                lines.add(bound.id() + " server " + server.name() + "  " + server.transport() + "  "
                        + server.status().wire() + ", " + server.tools().size() + " tool" + (server.tools().size() == 1 ? "" : "s")
                        + (server.reason() == null ? "" : "\n        reason: " + server.reason()));
            for (var tool : snapshot.tools())
                lines.add("tool   " + tool.spec().name() + "  [" + tool.spec().toolset() + "]");
        });
        registries.modelProviders().stream().filter(p -> p.pluginId().equals(pluginId))
                .forEach(p -> lines.add("model provider " + p.value().id()));
        registries.agentRuntimes().stream().filter(p -> p.pluginId().equals(pluginId))
                .forEach(p -> lines.add("agent runtime " + p.value().id()));
        if (lines.isEmpty()) lines.add("(contributes nothing)");
        return lines;
    }
}
