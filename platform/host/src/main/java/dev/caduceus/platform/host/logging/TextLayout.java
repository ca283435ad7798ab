package dev.caduceus.platform.host.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.LocalTime;
import java.time.ZoneId;

/**
 * The default format, one line per event in local time:
 * {@code 21:58:09.123 INFO [main] Platform - message [request_id=… run_id=…]}, the bracket only with the
 * {@link MdcKeys} the event has, then a throwable's stack trace on the lines after. Key-value pairs are
 * not printed (messages carry their own text). Stateless after construction; called from any thread.
 */
public final class TextLayout extends LayoutBase<ILoggingEvent> {
    private final ZoneId zone;

    /** In the JVM's time zone. */
    public TextLayout() {
        this(ZoneId.systemDefault());
    }

    TextLayout(ZoneId zone) {
        this.zone = zone;
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        var line = new StringBuilder(128);
        var time = LocalTime.ofInstant(event.getInstant(), zone);
        digits(line, time.getHour(), 2).append(':');
        digits(line, time.getMinute(), 2).append(':');
        digits(line, time.getSecond(), 2).append('.');
        digits(line, time.getNano() / 1_000_000, 3);
        line.append(' ').append(event.getLevel()).append(" [").append(event.getThreadName()).append("] ")
                .append(shortName(event.getLoggerName())).append(" - ").append(event.getFormattedMessage());
        var mdc = event.getMDCPropertyMap();
        var first = true;
        for (var key : MdcKeys.ALL) {
            var value = mdc.get(key);
            if (value == null) continue;
            line.append(first ? " [" : " ").append(key).append('=').append(value);
            first = false;
        }
        if (!first) line.append(']');
        line.append(CoreConstants.LINE_SEPARATOR);
        if (event.getThrowableProxy() != null) line.append(ThrowableProxyUtil.asString(event.getThrowableProxy())); // ends its lines
        return line.toString();
    }

    /** The last segment of a dotted name: {@code dev.caduceus.platform.server.Platform} is {@code Platform}. */
    static String shortName(String logger) {
        int dot = logger.lastIndexOf('.');
        return dot < 0 || dot == logger.length() - 1 ? logger : logger.substring(dot + 1);
    }

    private static StringBuilder digits(StringBuilder out, int value, int width) {
        var text = Integer.toString(value);
        for (int i = text.length(); i < width; i++) out.append('0');
        return out.append(text);
    }
}
