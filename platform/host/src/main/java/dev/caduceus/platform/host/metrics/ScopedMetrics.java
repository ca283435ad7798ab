package dev.caduceus.platform.host.metrics;

import dev.caduceus.spi.metrics.Metrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * {@link Metrics} with one name prefix ({@code caduceus_} for the host, {@code caduceus_<plugin>_} for
 * a plugin), on a {@link MetricsRegistry}. Counters and histograms have no exemplars (nothing here
 * traces) and histograms only classic buckets (what the text format shows). Thread-safe.
 */
final class ScopedMetrics implements Metrics {
    /** Timer buckets in seconds: 1 ms to 5 minutes. */
    static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
            120, 300};
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    private final MetricsRegistry registry;
    private final String prefix;

    ScopedMetrics(MetricsRegistry registry, String prefix) {
        this.registry = registry;
        this.prefix = prefix;
    }

    @Override
    public Metrics.Counter counter(String name, String help, String... labelNames) {
        var full = prefix + checked(name, "counter");
        if (full.endsWith("_total")) throw new IllegalArgumentException("counter " + name + ": leave out _total");
        var labels = labels(labelNames);
        return registry.instrument(full, CounterImpl.class, labels, () -> {
            var counter = io.prometheus.metrics.core.metrics.Counter.builder().name(full).help(help(help)).labelNames(labelNames).withoutExemplars()
                    .register(registry.registry());
            return new CounterImpl(labels, new SeriesCache<CounterDataPoint>(full, labels, counter::labelValues),
                    labels.isEmpty() ? counter : null);
        });
    }

    @Override
    public Metrics.Histogram timer(String name, String help, String... labelNames) {
        var base = checked(name, "timer");
        return histogram(base.endsWith("_seconds") ? base : base + "_seconds", help, SECONDS, labelNames);
    }

    @Override
    public Metrics.Histogram histogram(String name, String help, List<Double> buckets, String... labelNames) {
        var bounds = buckets.stream().mapToDouble(Double::doubleValue).toArray();
        for (int i = 1; i < bounds.length; i++)
            if (!(bounds[i] > bounds[i - 1])) throw new IllegalArgumentException("histogram " + name + ": buckets must ascend");
        return histogram(checked(name, "histogram"), help, bounds, labelNames);
    }

    private Metrics.Histogram histogram(String name, String help, double[] bounds, String... labelNames) {
        var full = prefix + name;
        var labels = labels(labelNames);
        return registry.instrument(full, HistogramImpl.class, labels, () -> {
            var histogram = io.prometheus.metrics.core.metrics.Histogram.builder().name(full).help(help(help)).labelNames(labelNames).classicOnly()
                    .classicUpperBounds(bounds).withoutExemplars().register(registry.registry());
            return new HistogramImpl(labels, new SeriesCache<DistributionDataPoint>(full, labels, histogram::labelValues),
                    labels.isEmpty() ? histogram : null);
        });
    }

    @Override
    public void gauge(String name, String help, DoubleSupplier value) {
        var full = prefix + checked(name, "gauge");
        registry.instrument(full, GaugeImpl.class, List.of(), () -> {
            GaugeWithCallback.builder().name(full).help(help(help)).callback(cb -> cb.call(value.getAsDouble()))
                    .register(registry.registry());
            return new GaugeImpl();
        });
    }

    private static String checked(String name, String kind) {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException(kind + " name must match [a-z][a-z0-9_]*: " + name);
        return name;
    }

    private static List<String> labels(String[] names) {
        for (var n : names)
            if (n == null || !NAME.matcher(n).matches())
                throw new IllegalArgumentException("label name must match [a-z][a-z0-9_]*: " + n);
        return List.of(names);
    }

    private static String help(String help) {
        return help == null || help.isBlank() ? "(no description)" : help;
    }

    private record CounterImpl(List<String> labelNames, SeriesCache<CounterDataPoint> series, CounterDataPoint plain)
            implements Metrics.Counter, MetricsRegistry.Instrument {
        @Override
        public void inc(String... labelValues) {
            point(labelValues).inc();
        }

        @Override
        public void add(double amount, String... labelValues) {
            if (amount < 0) throw new IllegalArgumentException("a counter only goes up: " + amount);
            point(labelValues).inc(amount);
        }

        private CounterDataPoint point(String[] values) {
            return plain != null && values.length == 0 ? plain : series.get(values);
        }
    }

    private record HistogramImpl(List<String> labelNames, SeriesCache<DistributionDataPoint> series,
                                 DistributionDataPoint plain) implements Metrics.Histogram, MetricsRegistry.Instrument {
        @Override
        public void observe(double value, String... labelValues) {
            (plain != null && labelValues.length == 0 ? plain : series.get(labelValues)).observe(value);
        }
    }

    private record GaugeImpl() implements MetricsRegistry.Instrument {
        @Override
        public List<String> labelNames() {
            return List.of();
        }
    }
}
