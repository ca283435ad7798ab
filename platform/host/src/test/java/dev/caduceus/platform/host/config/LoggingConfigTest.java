package dev.caduceus.platform.host.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code logging} section: its keys, their sources, and errors that name the key and the file. */
class LoggingConfigTest {
    @TempDir Path dir;

    private Path write(String yaml) throws IOException {
        Files.createDirectories(dir.resolve("home"));
        return Files.writeString(dir.resolve("home/config.yaml"), yaml);
    }

    private LoggingConfig load(Map<String, String> env) {
        var all = new HashMap<>(env);
        all.put("CADUCEUS_HOME", dir.resolve("home").toString());
        return new ConfigLoader(all, dir.resolve("user")).load(Optional.empty(), List.of()).logging();
    }

    @Test
    void defaultsAreInfoTextAndNoLevels() {
        assertEquals(new LoggingConfig("info", Map.of(), "text"), load(Map.of()));
    }

    @Test
    void levelsMapLoggersAndPackagesToLevelsWrittenDottedOrNested() throws IOException {
        write("""
                logging:
                  level: warn
                  format: json
                  levels:
                    dev.caduceus.plugin.jobs: debug
                    org:
                      eclipse:
                        jetty: INFO
                """);
        var logging = load(Map.of());
        assertEquals("warn", logging.level());
        assertEquals("json", logging.format());
        assertEquals(Map.of("dev.caduceus.plugin.jobs", "debug", "org.eclipse.jetty", "info"), logging.levels(),
                "nested mappings join with dots; a level in capitals is the level");
    }

    @Test
    void theEnvironmentWinsOverTheFileAndItsLevelsAreNameEqualsLevelPairs() throws IOException {
        write("logging:\n  level: error\n  levels:\n    a.b: trace\n");
        var logging = load(Map.of("CADUCEUS_LOG_LEVEL", "DEBUG",
                "CADUCEUS__LOGGING__LEVELS", "dev.caduceus.plugin.terminal=off, org.pf4j=info"));
        assertEquals("debug", logging.level());
        assertEquals(Map.of("dev.caduceus.plugin.terminal", "off", "org.pf4j", "info"), logging.levels());
    }

    @Test
    void aBadLevelInTheLevelsNamesItsEntryAndTheFile() throws IOException {
        var file = write("logging:\n  levels:\n    dev.caduceus.plugin.jobs: loud\n");
        var e = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertEquals("Invalid value for logging.levels.dev.caduceus.plugin.jobs in " + file
                + ": \"loud\" is not one of trace, debug, info, warn, error, off", e.getMessage());
    }

    @Test
    void aBadLevelOrFormatNamesTheKeyAndWhereItWasSet() throws IOException {
        var file = write("logging:\n  format: xml\n");
        var format = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertEquals("Invalid value for logging.format in " + file + ": \"xml\" is not one of text, json",
                format.getMessage());
        write("logging:\n  level: info\n");
        var level = assertThrows(ConfigException.class, () -> load(Map.of("CADUCEUS_LOG_LEVEL", "verbose")));
        assertTrue(level.getMessage().startsWith("Invalid value for logging.level in environment variable "
                + "CADUCEUS_LOG_LEVEL: \"verbose\""), level.getMessage());
    }

    @Test
    void levelsMustBeAMappingOrPairs() throws IOException {
        var file = write("logging:\n  levels: [debug]\n");
        var list = assertThrows(ConfigException.class, () -> load(Map.of()));
        assertTrue(list.getMessage().contains("logging.levels in " + file) && list.getMessage().contains("mapping"),
                list.getMessage());
        var pairs = assertThrows(ConfigException.class, () -> load(Map.of("CADUCEUS__LOGGING__LEVELS", "debug")));
        assertTrue(pairs.getMessage().contains("environment variable CADUCEUS__LOGGING__LEVELS")
                && pairs.getMessage().contains("name=value"), pairs.getMessage());
    }

    @Test
    void theReferenceListsTheKeysWithTheirVariable() {
        var reference = ConfigReference.markdown(List.of());
        assertTrue(reference.contains("| `logging.level` | trace \\| debug \\| info \\| warn \\| error \\| off | `info` | "
                + "`CADUCEUS_LOG_LEVEL`, `CADUCEUS__LOGGING__LEVEL` |"), reference);
        assertTrue(reference.contains("| `logging.levels` | mapping of names to trace"), reference);
        assertTrue(reference.contains("| `logging.format` | text \\| json | `text` |"), reference);
    }
}
