package dev.caduceus.platform.host.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ch.qos.logback.classic.Level;
import dev.caduceus.platform.host.config.LoggingConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogSettingsTest {
    @Test
    void withoutVariablesItIsInfoAndText() {
        assertEquals(LogSettings.defaults(), LogSettings.fromEnvironment(Map.of()));
        assertEquals(LogSettings.defaults(), LogSettings.fromEnvironment(Map.of("CADUCEUS_LOG_LEVEL", "")));
    }

    @Test
    void theLevelVariableInAnyCaseAndTheFormatVariable() {
        var settings = LogSettings.fromEnvironment(Map.of("CADUCEUS_LOG_LEVEL", "WARN", "CADUCEUS__LOGGING__FORMAT", "json"));
        assertEquals(new LogSettings(Level.WARN, Map.of(), LogSettings.Format.JSON), settings);
        assertEquals(Level.OFF, LogSettings.fromEnvironment(Map.of("CADUCEUS__LOGGING__LEVEL", "off")).level());
        assertEquals(Level.TRACE, LogSettings.fromEnvironment(
                Map.of("CADUCEUS_LOG_LEVEL", "trace", "CADUCEUS__LOGGING__LEVEL", "error")).level(), "the documented name wins");
    }

    @Test
    void anInvalidValueIsAnErrorNamingTheVariable() {
        var level = assertThrows(IllegalArgumentException.class,
                () -> LogSettings.fromEnvironment(Map.of("CADUCEUS_LOG_LEVEL", "verbose")));
        assertEquals("Invalid value for logging.level in environment variable CADUCEUS_LOG_LEVEL: \"verbose\" is not one "
                + "of trace, debug, info, warn, error, off", level.getMessage());
        var format = assertThrows(IllegalArgumentException.class,
                () -> LogSettings.fromEnvironment(Map.of("CADUCEUS__LOGGING__FORMAT", "xml")));
        assertEquals("Invalid value for logging.format in environment variable CADUCEUS__LOGGING__FORMAT: \"xml\" is not "
                + "one of text, json", format.getMessage());
    }

    @Test
    void fromTheConfiguration() {
        var settings = LogSettings.from(new LoggingConfig("debug", Map.of("dev.caduceus.plugin.jobs", "trace"), "json"));
        assertEquals(new LogSettings(Level.DEBUG, Map.of("dev.caduceus.plugin.jobs", Level.TRACE), LogSettings.Format.JSON),
                settings);
    }
}
