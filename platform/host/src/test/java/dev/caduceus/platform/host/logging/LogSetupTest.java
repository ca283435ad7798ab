package dev.caduceus.platform.host.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The backend as this JVM has it: logback started by {@link EnvironmentConfigurator}, SLF4J,
 * java.util.logging and {@code System.Logger} lines on stderr in one format, under one set of levels.
 */
class LogSetupTest {
    private static final String PKG = "dev.caduceus.test.logsetup";
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeEach
    void captureStderr() {
        stderr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        LogSetup.apply(LogSettings.defaults());
        System.setErr(stderr);
    }

    private List<String> lines() {
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void logbackStartsConfiguredByTheHostNotByXmlNorAtDebug() {
        var context = assertInstanceOf(LoggerContext.class, LoggerFactory.getILoggerFactory());
        var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        assertTrue(root.getAppender(LogSetup.APPENDER) != null, "the stderr appender");
        assertEquals(Level.WARN, context.getLogger("org.eclipse.jetty").getLevel());
        assertEquals(Level.WARN, context.getLogger("org.pf4j").getLevel());
        assertEquals(Level.WARN, context.getLogger("com.zaxxer.hikari").getLevel());
        assertFalse(LoggerFactory.getLogger(PKG).isDebugEnabled());
    }

    @Test
    void theRootLevelAndTheLevelsPerPackageAndAnEarlierCallsLevelsAreCleared() {
        LogSetup.apply(new LogSettings(Level.WARN, Map.of(PKG + ".jobs", Level.DEBUG, "org.eclipse.jetty", Level.INFO),
                LogSettings.Format.TEXT));
        assertTrue(LoggerFactory.getLogger(PKG + ".jobs.JobScheduler").isDebugEnabled(), "a package covers its loggers");
        assertFalse(LoggerFactory.getLogger(PKG + ".Other").isInfoEnabled());
        assertTrue(LoggerFactory.getLogger("org.eclipse.jetty.server.Server").isInfoEnabled(), "the quiet ones can be named");
        LogSetup.apply(LogSettings.defaults());
        assertFalse(LoggerFactory.getLogger(PKG + ".jobs.JobScheduler").isDebugEnabled(), "no longer named: the root's");
        assertTrue(LoggerFactory.getLogger(PKG + ".Other").isInfoEnabled());
        assertFalse(LoggerFactory.getLogger("org.eclipse.jetty.server.Server").isInfoEnabled(), "back at warn");
    }

    @Test
    void systemLoggerAndJavaUtilLoggingLinesComeOutInTheSameFormatAndObeyTheLevels() {
        var slf4j = LoggerFactory.getLogger(PKG + ".Slf4j");
        var system = System.getLogger(PKG + ".SystemLogger");
        var jul = java.util.logging.Logger.getLogger(PKG + ".Jul");
        slf4j.info("from slf4j");
        system.log(System.Logger.Level.WARNING, "from {0}", "System.Logger");
        jul.info("from jul");
        system.log(System.Logger.Level.DEBUG, "hidden at info");
        jul.fine("hidden at info");
        assertFalse(system.isLoggable(System.Logger.Level.DEBUG));
        assertFalse(jul.isLoggable(java.util.logging.Level.FINE), "JUL's level follows logback's: nothing to format");

        LogSetup.apply(new LogSettings(Level.INFO, Map.of(PKG, Level.DEBUG), LogSettings.Format.TEXT));
        assertTrue(system.isLoggable(System.Logger.Level.DEBUG));
        assertTrue(jul.isLoggable(java.util.logging.Level.FINE));
        system.log(System.Logger.Level.DEBUG, "shown at debug");
        jul.fine("jul shown at debug");

        var lines = lines();
        var format = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (INFO|WARN|DEBUG) \\[[^\\]]+\\] \\w+ - .*";
        assertEquals(5, lines.size(), String.join("\n", lines));
        for (var line : lines) assertTrue(line.matches(format), line);
        assertTrue(lines.get(0).endsWith(" INFO [main] Slf4j - from slf4j"), lines.get(0));
        assertTrue(lines.get(1).endsWith(" WARN [main] SystemLogger - from System.Logger"), lines.get(1));
        assertTrue(lines.get(2).endsWith(" INFO [main] Jul - from jul"), lines.get(2));
        assertTrue(lines.get(3).endsWith(" DEBUG [main] SystemLogger - shown at debug"), lines.get(3));
        assertTrue(lines.get(4).endsWith(" DEBUG [main] Jul - jul shown at debug"), lines.get(4));
    }

    @Test
    void jsonReplacesTheTextAppenderAndEveryBridgeWritesIt() throws Exception {
        LogSetup.apply(new LogSettings(Level.INFO, Map.of(), LogSettings.Format.JSON));
        MDC.put(MdcKeys.REQUEST_ID, "req_1");
        try {
            LoggerFactory.getLogger(PKG + ".Slf4j").atInfo().addKeyValue("status", 200).log("GET / 200");
        } finally {
            MDC.remove(MdcKeys.REQUEST_ID);
        }
        System.getLogger(PKG + ".SystemLogger").log(System.Logger.Level.ERROR, "failed", new IllegalStateException("boom"));
        java.util.logging.Logger.getLogger(PKG + ".Jul").warning("from jul");
        var json = new ObjectMapper();
        var lines = lines();
        assertEquals(3, lines.size(), String.join("\n", lines));
        var first = json.readTree(lines.get(0));
        assertEquals("GET / 200", first.path("message").asText());
        assertEquals(200, first.path("status").asInt());
        assertEquals("req_1", first.path("request_id").asText());
        var second = json.readTree(lines.get(1));
        assertEquals(PKG + ".SystemLogger", second.path("logger").asText());
        assertEquals("ERROR", second.path("level").asText());
        assertTrue(second.path("error").asText().startsWith("java.lang.IllegalStateException: boom\n\tat "), lines.get(1));
        assertEquals("WARN", json.readTree(lines.get(2)).path("level").asText());

        LogSetup.apply(LogSettings.defaults());
        LoggerFactory.getLogger(PKG + ".Slf4j").info("text again");
        assertTrue(lines().getLast().endsWith(" INFO [main] Slf4j - text again"), lines().getLast());
        var context = (LoggerContext) LoggerFactory.getILoggerFactory();
        var appenders = new java.util.ArrayList<String>();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).iteratorForAppenders().forEachRemaining(a -> appenders.add(a.getName()));
        assertEquals(List.of(LogSetup.APPENDER), appenders, "one appender, replaced");
    }
}
