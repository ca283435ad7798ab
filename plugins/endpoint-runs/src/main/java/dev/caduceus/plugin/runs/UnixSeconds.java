package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.node.DecimalNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Run times on the wire: float unix seconds with millisecond precision, written
 * with exactly three decimals ({@code 1767225640.551}), never in exponent form. Stateless.
 */
final class UnixSeconds {
    private static final Pattern TEXT = Pattern.compile("[0-9]{1,12}(\\.[0-9]{1,3})?");

    private UnixSeconds() {}

    /** {@code instant} truncated to the millisecond, as a JSON number. */
    static DecimalNode of(Instant instant) {
        return DecimalNode.valueOf(decimal(instant.toEpochMilli()));
    }

    /** A duration in milliseconds as seconds with three decimals. */
    static DecimalNode ofMillis(long millis) {
        return DecimalNode.valueOf(decimal(millis));
    }

    /** The text form of {@link #of}. */
    static String text(Instant instant) {
        return decimal(instant.toEpochMilli()).toPlainString();
    }

    /** Parses the text form back; null when {@code text} is not non-negative seconds with at most three decimals. */
    static Instant parse(String text) {
        if (!TEXT.matcher(text).matches()) return null;
        return Instant.ofEpochMilli(new BigDecimal(text).movePointRight(3).longValueExact());
    }

    private static BigDecimal decimal(long millis) {
        return BigDecimal.valueOf(millis, 3);
    }
}
