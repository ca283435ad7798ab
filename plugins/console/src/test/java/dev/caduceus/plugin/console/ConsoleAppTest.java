package dev.caduceus.plugin.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What the browser tests cannot see at a glance, checked on the files themselves: nothing inline
 * that the CSP would block, no markup built from strings, nothing kept outside sessionStorage or
 * written to the browser console, every import resolvable and every file servable.
 */
class ConsoleAppTest {
    private static final Pattern IMPORT = Pattern.compile("(?:from|import\\()\\s*'\\./([^']+)'");
    private static final Pattern CONSOLE = Pattern.compile("\\bconsole\\.[a-z]+\\(");
    private static final List<String> FORBIDDEN = List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
            "eval(", "new Function", "localStorage", ".style.", "setAttribute('style'", "cookie", "http://", "https://");

    private static Map<String, String> files() throws IOException, URISyntaxException {
        var folder = Path.of(ConsoleAppTest.class.getClassLoader().getResource(ConsoleFiles.FOLDER).toURI());
        var files = new TreeMap<String, String>();
        try (var list = Files.list(folder)) {
            for (var file : list.toList()) files.put(file.getFileName().toString(), Files.readString(file));
        }
        return files;
    }

    @Test
    void everyFileIsServableByName() throws Exception {
        var console = new ConsoleFiles(ConsoleAppTest.class.getClassLoader());
        for (var name : files().keySet()) assertTrue(console.find(name).isPresent(), name + " would be a 404");
    }

    @Test
    void thePageHasNoInlineScriptOrStyle() throws Exception {
        var html = files().get(ConsoleFamily.INDEX);
        assertFalse(html.contains("<style"), "inline <style>");
        assertFalse(Pattern.compile("\\sstyle=").matcher(html).find(), "style attribute");
        assertFalse(Pattern.compile("\\son[a-z]+=").matcher(html).find(), "inline event handler");
        var scripts = Pattern.compile("<script([^>]*)>").matcher(html);
        int count = 0;
        while (scripts.find()) {
            count++;
            assertTrue(scripts.group(1).contains("src=\"/console/"), "every script is a file of the app: " + scripts.group());
        }
        assertEquals(1, count, "one entry module");
        assertFalse(html.contains("javascript:"));
    }

    @Test
    void scriptsBuildNoMarkupFromStringsAndKeepNothingOutsideSessionStorage() throws Exception {
        for (var file : files().entrySet()) {
            if (!file.getKey().endsWith(".js")) continue;
            for (var word : FORBIDDEN)
                assertFalse(file.getValue().contains(word), file.getKey() + " uses " + word);
            assertFalse(CONSOLE.matcher(file.getValue()).find(), file.getKey() + " writes to the browser console");
        }
    }

    @Test
    void everyImportResolvesToAFileOfTheApp() throws Exception {
        var files = files();
        for (var file : files.entrySet()) {
            if (!file.getKey().endsWith(".js")) continue;
            var imports = IMPORT.matcher(file.getValue());
            while (imports.find())
                assertTrue(files.containsKey(imports.group(1)), file.getKey() + " imports a missing " + imports.group(1));
        }
    }
}
