package dev.caduceus.platform.host.metrics;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.metrics.Metrics;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every metric of one process, on the Prometheus Java client's registry: the host's
 * ({@link #host()}, named {@code caduceus_…}), each plugin's ({@link #plugin}, named
 * {@code caduceus_<plugin id>_…}) and the JVM's and process's ({@link #registerJvm()}: heap, GC,
 * threads, RSS, open file descriptors). {@link #scrape} writes them in the Prometheus text format or,
 * when the client asks for it, OpenMetrics.
 *
 * <p>Threading: instruments may be created and recorded from any thread; a scrape reads a consistent
 * snapshot per metric. Lifecycle: one per boot, created before the plugins start.
 */
public final class MetricsRegistry {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    /** Full name → instrument, so that asking again for the same one returns it. */
    private final Map<String, Instrument> instruments = new ConcurrentHashMap<>();
    private final PrometheusTextFormatWriter text = PrometheusTextFormatWriter.create();
    private final OpenMetricsTextFormatWriter openMetrics = OpenMetricsTextFormatWriter.create();

    /** The host's own metrics, named {@code caduceus_<name>}. */
    public Metrics host() {
        return new ScopedMetrics(this, "caduceus_");
    }

    /** A plugin's metrics, named {@code caduceus_<plugin id>_<name>} (the id's other characters as {@code _}). */
    public Metrics plugin(String pluginId) {
        requireNonNull(pluginId, "pluginId");
        return new ScopedMetrics(this, "caduceus_" + pluginId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_") + "_");
    }

    /**
     * Adds the JVM and process metrics (once): {@code JvmMetrics}' set, whose native memory part is left
     * out unless the JVM tracks native memory ({@code -XX:NativeMemoryTracking}): without it that part
     * has nothing to show, and finding that out (a diagnostic command through JMX) took ~100 ms of every
     * start (issue 48).
     */
    public void registerJvm() {
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        if (tracksNativeMemory(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()))
            JvmNativeMemoryMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }

    /** Whether the JVM's flags turn native memory tracking on. */
    static boolean tracksNativeMemory(java.util.List<String> jvmArguments) {
        boolean on = false;
        for (var argument : jvmArguments) // the last one counts
            if (argument.startsWith("-XX:NativeMemoryTracking="))
                on = !argument.equals("-XX:NativeMemoryTracking=off");
        return on;
    }

    /** What {@link #scrape} wrote: the body and its content type. */
    public record Exposition(String contentType, byte[] body) {}

    /**
     * Every metric now, in OpenMetrics when {@code accept} names {@code application/openmetrics-text},
     * else in the Prometheus text format 0.0.4.
     */
    public Exposition scrape(String accept) {
        ExpositionFormatWriter writer = accept != null && openMetrics.accepts(accept) ? openMetrics : text;
        var out = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(out, registry.scrape(), EscapingScheme.fromAcceptHeader(accept));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return new Exposition(writer.getContentType(), out.toByteArray());
    }

    PrometheusRegistry registry() {
        return registry;
    }

    /**
     * The instrument called {@code fullName}: the existing one when its kind and labels match, a new
     * one from {@code create} when there is none.
     *
     * @throws IllegalArgumentException when the name is taken by another kind or other labels
     */
    <T extends Instrument> T instrument(String fullName, Class<T> kind, java.util.List<String> labels,
                                        java.util.function.Supplier<T> create) {
        var existing = instruments.computeIfAbsent(fullName, n -> create.get());
        if (!kind.isInstance(existing) || !existing.labelNames().equals(labels))
            throw new IllegalArgumentException("metric " + fullName + " already exists with another kind or other labels");
        return kind.cast(existing);
    }

    /** What {@link #instrument} keeps: anything with label names. */
    interface Instrument {
        java.util.List<String> labelNames();
    }
}
