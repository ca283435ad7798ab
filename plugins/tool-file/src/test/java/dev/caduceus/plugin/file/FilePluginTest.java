package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilePluginTest {
    @TempDir Path temp;

    @Test
    void contributesTheFourFileToolsWithHermesNamesAndHints() {
        try (var f = new Fixture(temp)) {
            var summary = new StringBuilder();
            for (var t : f.tools())
                summary.append(t.spec().name()).append(' ').append(t.spec().toolset()).append(' ')
                        .append(t.spec().parallelSafe()).append(' ').append(t.spec().emoji()).append('\n');
            assertEquals("""
                    patch file false 🩹
                    read_file file true 📖
                    search_files file true 🔎
                    write_file file false ✍️
                    """, summary.toString());
            assertEquals("[\"path\"]", f.tool("read_file").spec().parameters().get("required").toString());
        }
    }

    @Test
    void nullAndWrongTypedArgumentsNeverThrow() {
        try (var f = new Fixture(temp)) {
            for (var name : new String[] {"read_file", "write_file", "patch", "search_files"})
                for (var args : new String[] {"{}", "{\"path\": null}", "{\"path\": [1]}", "{\"mode\": 1, \"pattern\": {}}"})
                    assertTrue(f.json(name, args).has("error"), name + " " + args);
        }
    }
}
