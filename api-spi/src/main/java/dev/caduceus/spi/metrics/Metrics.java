package dev.caduceus.spi.metrics;

import java.time.Duration;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * Numbers a plugin publishes on the host's {@code GET /metrics} (Prometheus text format): counters,
 * histograms and gauges. The host prefixes every name with {@code caduceus_} and the plugin id
 * ({@code fired} of plugin {@code endpoint-jobs} becomes {@code caduceus_endpoint_jobs_fired_total}),
 * so plugins cannot collide with each other or the host.
 *
 * <p>Names are lower_snake_case ({@code [a-z][a-z0-9_]*}); a counter's name does not end in
 * {@code _total} (the exposition adds it), a timer's {@code _seconds} is added when missing. Asking
 * again for a name with the same kind and labels returns the same instrument; another kind or other
 * labels throw {@link IllegalArgumentException}.
 *
 * <p>Label values must come from a small, known set (a tool name from the catalog, an outcome, a
 * status class), never from ids, paths or what a client or the model wrote: each instrument keeps at
 * most {@link #MAX_SERIES} label combinations, and the values of any further one are all reported as
 * {@code other}.
 *
 * <p>Threading: create instruments once (in {@code start}); use them from any thread. Recording is
 * lock-free and allocation-light.
 */
public interface Metrics {
    /** Label combinations one instrument keeps before it folds new ones into {@code other}. */
    int MAX_SERIES = 200;

    /** A counter that only goes up, with these label names (none for a plain count). */
    Counter counter(String name, String help, String... labelNames);

    /**
     * A histogram of durations in seconds, with buckets from 1 ms to 5 minutes (latency of calls,
     * requests, runs).
     */
    Histogram timer(String name, String help, String... labelNames);

    /** A histogram of plain values with these bucket upper bounds (ascending; {@code +Inf} is added). */
    Histogram histogram(String name, String help, List<Double> buckets, String... labelNames);

    /**
     * A gauge read from {@code value} at every scrape (on the scraping thread: keep it cheap). Asking
     * again for the same name keeps the first supplier.
     */
    void gauge(String name, String help, DoubleSupplier value);

    /** Counts events. Thread-safe. */
    interface Counter {
        /** Adds one; one label value per label name, in order. */
        void inc(String... labelValues);

        /** Adds {@code amount} (≥ 0). */
        void add(double amount, String... labelValues);
    }

    /** Records observations into buckets, with their count and sum. Thread-safe. */
    interface Histogram {
        /** Records one value (seconds, for a timer). */
        void observe(double value, String... labelValues);

        /** Records a duration, for a timer. */
        default void record(Duration duration, String... labelValues) {
            observe(duration.toNanos() / 1e9, labelValues);
        }

        /** Records the time since {@code startNanos} (a {@link System#nanoTime()} reading), for a timer. */
        default void recordSince(long startNanos, String... labelValues) {
            observe((System.nanoTime() - startNanos) / 1e9, labelValues);
        }
    }
}
