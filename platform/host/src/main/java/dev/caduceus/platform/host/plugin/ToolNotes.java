package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.tool.Tool;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The operators' notes of the deployment's tools ({@link Tool#note()}), by tool name, read once at
 * boot: the start-up banner prints them, {@code caduceus plugins} lists them and the {@code tools}
 * check of {@code /health/detailed} is degraded while any is a warning. Immutable.
 */
public record ToolNotes(Map<String, Tool.Note> byTool) {
    public ToolNotes {
        byTool = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byTool));
    }

    /** The notes of every frozen tool that has one, in registry order. */
    public static ToolNotes of(Registries registries) {
        var notes = new LinkedHashMap<String, Tool.Note>();
        for (var entry : registries.toolEntries()) {
            java.util.Optional<Tool.Note> note;
            try {
                note = PluginCalls.with(entry.classLoader(), () -> entry.value().note());
            } catch (Exception e) {
                note = java.util.Optional.of(new Tool.Note("note() failed: " + e, true));
            }
            note.ifPresent(n -> notes.put(entry.value().spec().name(), n));
        }
        return new ToolNotes(notes);
    }

    /** Only the warnings. */
    public Map<String, Tool.Note> warnings() {
        var out = new LinkedHashMap<String, Tool.Note>();
        byTool.forEach((name, note) -> {
            if (note.warning()) out.put(name, note);
        });
        return out;
    }
}
