package dev.caduceus.platform.host.plugin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Orders plugins by {@code Plugin-Dependencies}: dependencies first, independent plugins by id,
 * so the boot is deterministic. Plugins whose required dependency is absent, and plugins in a cycle, are
 * set apart with a reason, before PF4J sees them.
 */
final class StartOrder {
    private StartOrder() {}

    /** @param failed plugin id → why it cannot start */
    record Plan(List<PluginScanner.Scanned> order, Map<String, String> failed) {}

    static Plan plan(List<PluginScanner.Scanned> enabled) {
        var present = new TreeMap<String, PluginScanner.Scanned>();
        enabled.forEach(s -> present.put(s.id(), s));
        var failed = new LinkedHashMap<String, String>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (var s : List.copyOf(present.values())) {
                for (var dep : s.descriptor().getDependencies()) {
                    if (dep.isOptional() || present.containsKey(dep.getPluginId())) continue;
                    var why = failed.containsKey(dep.getPluginId()) ? "which cannot start either"
                            : "which is not installed or not enabled";
                    failed.put(s.id(), "depends on plugin '" + dep.getPluginId() + "', " + why);
                    present.remove(s.id());
                    changed = true;
                    break;
                }
            }
        }
        var waitingOn = new HashMap<String, Integer>();
        var dependents = new HashMap<String, List<String>>();
        for (var s : present.values()) {
            int count = 0;
            for (var dep : s.descriptor().getDependencies()) {
                if (!present.containsKey(dep.getPluginId())) continue;
                dependents.computeIfAbsent(dep.getPluginId(), k -> new ArrayList<>()).add(s.id());
                count++;
            }
            waitingOn.put(s.id(), count);
        }
        var ready = new PriorityQueue<String>();
        waitingOn.forEach((id, n) -> { if (n == 0) ready.add(id); });
        var order = new ArrayList<PluginScanner.Scanned>();
        while (!ready.isEmpty()) {
            var id = ready.poll();
            order.add(present.remove(id));
            for (var dependent : dependents.getOrDefault(id, List.of()))
                if (waitingOn.merge(dependent, -1, Integer::sum) == 0) ready.add(dependent);
        }
        for (var id : present.keySet())
            failed.put(id, "is in a dependency cycle among " + String.join(", ", present.keySet()));
        return new Plan(order, failed);
    }
}
