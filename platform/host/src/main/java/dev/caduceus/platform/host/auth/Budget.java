package dev.caduceus.platform.host.auth;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * What a key may spend on model calls in one period ({@code caduceus key add --budget-usd 20 --budget-period month}).
 * Periods are calendar periods in UTC: a day, a week from Monday, a month from its first day. Immutable.
 */
public record Budget(BigDecimal usd, Period period) {
    /** A calendar period in UTC. */
    public enum Period {
        DAY, WEEK, MONTH;

        /** When the period holding {@code now} began. */
        public Instant start(Instant now) {
            var day = now.atZone(ZoneOffset.UTC).toLocalDate();
            var first = switch (this) {
                case DAY -> day;
                case WEEK -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                case MONTH -> day.withDayOfMonth(1);
            };
            return first.atStartOfDay(ZoneOffset.UTC).toInstant();
        }

        /** When the period holding {@code now} ends (the next one begins). */
        public Instant end(Instant now) {
            var start = start(now).atZone(ZoneOffset.UTC);
            var end = switch (this) {
                case DAY -> start.plusDays(1);
                case WEEK -> start.plusWeeks(1);
                case MONTH -> start.plusMonths(1);
            };
            return end.toInstant();
        }

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** {@code day}, {@code week} or {@code month}. */
        public static Period parse(String text, String option) {
            for (var p : values()) if (p.wireName().equals(text.strip().toLowerCase(Locale.ROOT))) return p;
            throw new IllegalArgumentException(option + ": '" + text + "' is not a period (day, week or month)");
        }
    }

    public Budget {
        requireNonNull(usd, "usd");
        requireNonNull(period, "period");
        if (usd.signum() <= 0) throw new IllegalArgumentException("a budget must be more than 0 USD");
    }

    /** {@code --budget-usd} as typed ({@code 20}, {@code 0.50}) and {@code --budget-period} (default month). */
    public static Budget parse(String usd, String period) {
        BigDecimal amount;
        try {
            amount = new BigDecimal(usd.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--budget-usd: '" + usd + "' is not an amount in US dollars (20, 0.50)");
        }
        if (amount.signum() <= 0 || amount.compareTo(new BigDecimal("1000000")) > 0)
            throw new IllegalArgumentException("--budget-usd must be more than 0 and at most 1000000: " + usd);
        if (amount.scale() > 6)
            throw new IllegalArgumentException("--budget-usd has more than 6 decimals: " + usd);
        return new Budget(amount.stripTrailingZeros(), period == null ? Period.MONTH : Period.parse(period, "--budget-period"));
    }

    /** The budget in picodollars (10⁻¹² USD), the unit spend is counted in. */
    public long pico() {
        return usd.movePointRight(12).longValueExact();
    }

    /** {@code 20 USD/month}. */
    public String describe() {
        return usd.toPlainString() + " USD/" + period.wireName();
    }
}
