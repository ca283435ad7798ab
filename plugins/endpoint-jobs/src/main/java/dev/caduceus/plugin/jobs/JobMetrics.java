package dev.caduceus.plugin.jobs;

import dev.caduceus.spi.metrics.Metrics;
import java.util.List;

/**
 * The scheduler's numbers on {@code GET /metrics} ({@code caduceus_endpoint_jobs_…}): firings by
 * trigger, firings skipped (by reason) and missed, and how late scheduled firings started. Immutable;
 * the instruments are thread-safe.
 */
record JobMetrics(Metrics.Counter fired, Metrics.Counter skipped, Metrics.Counter missed, Metrics.Histogram lateness) {
    /** Lateness buckets in seconds: a tick is 1 s by default, so most firings land in the first few. */
    private static final List<Double> LATENESS = List.of(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0,
            300.0, 3600.0);

    static JobMetrics on(Metrics metrics) {
        return new JobMetrics(
                metrics.counter("fired", "Job firings that started a run, by trigger (schedule, manual)", "trigger"),
                metrics.counter("skipped", "Job firings skipped: the previous run still live (overlap) or past its "
                        + "catch-up window (catch_up)", "reason"),
                metrics.counter("missed", "Job firings missed (the server was down past the job's grace period)"),
                metrics.histogram("lateness_seconds", "Seconds between a scheduled firing's due time and its run's "
                        + "start", LATENESS));
    }
}
