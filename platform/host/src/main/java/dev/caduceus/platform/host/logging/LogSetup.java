package dev.caduceus.platform.host.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Configures logback in code: one appender on stderr in the settings' format, the root level and the
 * levels per logger, and java.util.logging bridged into SLF4J with its levels kept equal to logback's
 * (so a disabled JUL level costs one comparison, as a disabled SLF4J level does). {@code System.Logger}
 * needs nothing here: {@code slf4j-jdk-platform-logging} on the module path is the JDK's
 * {@code System.LoggerFinder}, so a plugin's {@code System.getLogger} is an SLF4J logger.
 *
 * <p>Applied three times in a server's life, each time replacing what the last one set: when logback
 * starts ({@link EnvironmentConfigurator}), first thing in {@code Main} from the environment (which also
 * checks it), and once the configuration is loaded ({@code BootSteps}). The state lives in logback's
 * {@link LoggerContext}, not here. Threading: thread-safe; events logged while it runs keep going out,
 * under the old level or format or the new one.
 */
public final class LogSetup {
    /** The name of the stderr appender on the root logger. */
    static final String APPENDER = "stderr";
    /**
     * Chatty at info; quieter unless {@code logging.levels} names them. (HikariCP logs its pools' start
     * and shutdown at info: four lines per PostgreSQL start and stop.)
     */
    static final Map<String, Level> QUIET = Map.of("org.eclipse.jetty", Level.WARN, "org.pf4j", Level.WARN,
            "com.zaxxer.hikari", Level.WARN);

    private LogSetup() {}

    /**
     * SLF4J's provider, named so that SLF4J binds it without a {@code ServiceLoader} search: that search
     * looks through every jar of the module path for a {@code META-INF/services} file, ~40 ms of a cold
     * start (bench/README.md, issue 48). Only when nothing named another provider first.
     */
    static final String PROVIDER = "ch.qos.logback.classic.spi.LogbackServiceProvider";

    /** Applies {@code settings} to SLF4J's logback; does nothing when SLF4J is bound to another backend. */
    public static void apply(LogSettings settings) {
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", PROVIDER);
            // else SLF4J says on stderr at every start that it loads the provider named
            if (System.getProperty("slf4j.internal.verbosity") == null) System.setProperty("slf4j.internal.verbosity", "WARN");
        }
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) apply(context, settings);
    }

    static void apply(LoggerContext context, LogSettings settings) {
        synchronized (context) {
            bridgeJavaUtilLogging(context);
            levels(context, settings);
            format(context, settings.format());
        }
    }

    /** Once per context: JUL levels follow logback's, and JUL's root hands every record to SLF4J. */
    private static void bridgeJavaUtilLogging(LoggerContext context) {
        if (context.getCopyOfListenerList().stream().noneMatch(LevelChangePropagator.class::isInstance)) {
            var propagator = new LevelChangePropagator();
            propagator.setContext(context);
            propagator.setResetJUL(true);
            context.addListener(propagator);
            propagator.start();
        }
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger(); // JUL's own console handler: a second format
            SLF4JBridgeHandler.install();
        }
    }

    /** The root level, {@link #QUIET} and then the settings' levels; levels an earlier call set and this one does not are cleared. */
    private static void levels(LoggerContext context, LogSettings settings) {
        var wanted = new HashMap<>(QUIET);
        wanted.putAll(settings.levels());
        var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(settings.level());
        for (var logger : context.getLoggerList()) {
            if (logger != root && logger.getLevel() != null && !wanted.containsKey(logger.getName())) logger.setLevel(null);
        }
        wanted.forEach((name, level) -> context.getLogger(name).setLevel(level));
    }

    /** The stderr appender in {@code format}: kept when it already has that format, else replaced. */
    private static void format(LoggerContext context, LogSettings.Format format) {
        var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        Appender<ILoggingEvent> current = root.getAppender(APPENDER);
        if (current instanceof ConsoleAppender<ILoggingEvent> console
                && console.getEncoder() instanceof LayoutWrappingEncoder<ILoggingEvent> encoder
                && layoutClass(format).isInstance(encoder.getLayout()))
            return;
        root.addAppender(stderr(context, format == LogSettings.Format.JSON ? new JsonLayout() : new TextLayout()));
        if (current != null) {
            root.detachAppender(current);
            current.stop();
        }
    }

    private static Class<?> layoutClass(LogSettings.Format format) {
        return switch (format) {
            case TEXT -> TextLayout.class;
            case JSON -> JsonLayout.class;
        };
    }

    private static ConsoleAppender<ILoggingEvent> stderr(LoggerContext context, LayoutBase<ILoggingEvent> layout) {
        layout.setContext(context);
        layout.start();
        var encoder = new LayoutWrappingEncoder<ILoggingEvent>();
        encoder.setContext(context);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.setLayout(layout);
        encoder.start();
        var appender = new ConsoleAppender<ILoggingEvent>();
        appender.setContext(context);
        appender.setName(APPENDER);
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        return appender;
    }
}
