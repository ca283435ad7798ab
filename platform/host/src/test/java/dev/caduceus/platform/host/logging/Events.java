package dev.caduceus.platform.host.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.time.Instant;
import java.util.Map;
import org.slf4j.event.KeyValuePair;

/** Logging events built by hand, for the layouts' tests. */
final class Events {
    static final Instant AT = Instant.parse("2026-12-01T21:58:09.123456Z");
    private static final LoggerContext CONTEXT = new LoggerContext();

    private Events() {}

    static LoggingEvent event(String logger, Level level, String message, Throwable error, Map<String, String> mdc,
                              KeyValuePair... pairs) {
        var event = new LoggingEvent(Events.class.getName(), CONTEXT.getLogger(logger), level, message, error, null);
        event.setInstant(AT);
        event.setThreadName("main");
        event.setMDCPropertyMap(mdc);
        for (var pair : pairs) event.addKeyValuePair(pair);
        return event;
    }

    static LoggingEvent event(String message) {
        return event("dev.caduceus.platform.server.Platform", Level.INFO, message, null, Map.of());
    }
}
