package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration reference and the settings plugins declare, as an operator meets them: the
 * printed reference is the one in docs/, a wrong value of a plugin's key stops the boot naming the key
 * and the file, and only keys nothing declares are warned about.
 */
class ConfigReferenceIT {
    static final Path DOC = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/configuration.md");

    @TempDir Path home;

    @Test
    void theReferencePrintedIsDocsConfigurationMd() throws Exception {
        try (var process = Caduceus.launch(home, Map.of(), "config-reference")) {
            assertEquals(0, process.awaitExit(), process.stderr());
            // stdout() joins the lines it read, so compare line by line
            var expected = String.join("\n", Files.readAllLines(DOC));
            assertEquals(expected, process.stdout(), "docs/configuration.md is out of date; regenerate it with "
                    + "`distribution/target/caduceus/bin/caduceus config-reference > docs/configuration.md` "
                    + "(after mvn -B package -DskipTests)");
        }
    }

    @Test
    void aWrongValueOfAPluginsKeyStopsTheBootNamingTheKeyAndTheFile() throws Exception {
        var config = Files.writeString(home.resolve("config.yaml"), "chat:\n  housekeeping: sometimes\n");
        try (var process = Caduceus.launch(home, Caduceus.KEY_ENV, "serve")) {
            assertEquals(2, process.awaitExit());
            var err = process.stderr();
            assertTrue(err.contains("chat.housekeeping") && err.contains(config.toString()), err);
            assertFalse(err.contains("\tat "), "no stack trace: " + err);
        }
    }

    @Test
    void anUnknownKeyInAPluginsSectionIsWarnedAboutAndADeclaredOneIsNot() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "chat:\n  housekeeping: agent\n  colour: blue\n");
        try (var server = Caduceus.serve(home, Caduceus.KEY_ENV)) {
            server.terminate();
            server.awaitExit(); // everything it printed has been read
            var err = server.stderr();
            assertTrue(err.contains("Unknown configuration key chat.colour"), err);
            assertFalse(err.contains("Unknown configuration key chat.housekeeping"), err);
        }
    }
}
