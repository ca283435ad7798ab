package dev.caduceus.platform.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The architecture rule "the platform never knows a plugin by name" as a test: the code (comments
 * aside) of the SPI, the host, the runtime and the applications names no plugin id (read from every
 * {@code plugins/*&#47;pom.xml}'s {@code <plugin.id>}) in a string literal, and none of the keys only
 * one plugin owns ({@link #PLUGIN_KEYS}). It reads the source trees next to this module
 * ({@code ../..}, or the system property {@code caduceus.root}).
 */
class NoPluginNamesTest {
    /** Keys and variable names that belong to one plugin. */
    static final Set<String> PLUGIN_KEYS = Set.of("job_id", "SEARXNG", "TAVILY", "searxng", "tavily", "previous_response_id");
    /** The trees that must not know a plugin. */
    static final List<String> TREES = List.of("api-spi/src/main/java", "platform/host/src/main/java",
            "platform/runtime/src/main/java", "platform/batch/src/main/java", "platform/server/src/main/java");
    /** Names the platform may still use, each with its reason: none. */
    static final Set<String> ALLOWED = Set.of();
    private static final Pattern PLUGIN_ID = Pattern.compile("<plugin\\.id>([^<]+)</plugin\\.id>");
    private static final Pattern STRING = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");

    private static Path root() {
        var property = System.getProperty("caduceus.root");
        return (property != null ? Path.of(property) : Path.of("..", "..")).toAbsolutePath().normalize();
    }

    static Set<String> pluginIds(Path root) throws IOException {
        var ids = new TreeSet<String>();
        try (var dirs = Files.list(root.resolve("plugins"))) {
            for (var dir : dirs.toList()) {
                var pom = dir.resolve("pom.xml");
                if (!Files.isRegularFile(pom)) continue;
                var m = PLUGIN_ID.matcher(Files.readString(pom));
                if (m.find()) ids.add(m.group(1).strip());
            }
        }
        return ids;
    }

    @Test
    void thePlatformAndTheSpiNameNoPluginAndNoPluginsKey() throws IOException {
        var root = root();
        var ids = pluginIds(root);
        assertTrue(ids.size() >= 10 && ids.contains("endpoint-jobs") && ids.contains("tool-web"), "plugin ids: " + ids);
        var found = new ArrayList<String>();
        for (var tree : TREES) {
            var dir = root.resolve(tree);
            assertTrue(Files.isDirectory(dir), dir.toString());
            try (var files = Files.walk(dir)) {
                for (var file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    var code = withoutComments(Files.readString(file));
                    var where = root.relativize(file).toString();
                    for (var key : PLUGIN_KEYS)
                        if (Pattern.compile("\\b" + Pattern.quote(key)).matcher(code).find())
                            found.add(where + ": key " + key);
                    var literals = STRING.matcher(code);
                    while (literals.find())
                        for (var id : ids.stream().filter(id -> !ALLOWED.contains(id)).toList())
                            if (Pattern.compile("(?<![\\w-])" + Pattern.quote(id) + "(?![\\w-])").matcher(literals.group(1)).find())
                                found.add(where + ": plugin id " + id + " in \"" + literals.group(1) + "\"");
                }
            }
        }
        assertEquals(List.of(), found, "the platform and the SPI must not know a plugin by name");
    }

    @Test
    void commentsAreLeftOutButStringsAreKept() {
        var code = withoutComments("""
                /** names endpoint-jobs */ var a = "tool-web"; // job_id
                var b = "http://x"; /* TAVILY */""");
        assertEquals(" var a = \"tool-web\"; \nvar b = \"http://x\"; ", code);
    }

    /** {@code source} without its comments; string and character literals are kept as written. */
    static String withoutComments(String source) {
        var out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (c == '"' || c == '\'') {
                boolean block = source.startsWith("\"\"\"", i);
                var end = block ? "\"\"\"" : String.valueOf(c);
                int j = i + end.length();
                while (j < source.length() && !source.startsWith(end, j)) j += source.charAt(j) == '\\' ? 2 : 1;
                j = Math.min(source.length(), j + end.length());
                out.append(source, i, j);
                i = j;
            } else if (source.startsWith("//", i)) {
                while (i < source.length() && source.charAt(i) != '\n') i++;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? source.length() : end + 2;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
