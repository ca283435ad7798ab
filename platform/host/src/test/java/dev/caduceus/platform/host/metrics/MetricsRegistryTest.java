package dev.caduceus.platform.host.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MetricsRegistryTest {
    private final MetricsRegistry registry = new MetricsRegistry();

    private String text() {
        return new String(registry.scrape(null).body(), StandardCharsets.UTF_8);
    }

    @Test
    void countersHistogramsAndGaugesAppearWithTheHostPrefix() {
        var metrics = registry.host();
        var counter = metrics.counter("things", "Things done", "kind");
        counter.inc("a");
        counter.add(2, "a");
        counter.inc("b");
        metrics.timer("work", "Work time").record(Duration.ofMillis(20));
        var level = new AtomicInteger(7);
        metrics.gauge("level", "A level", level::get);
        var text = text();
        assertTrue(text.contains("# HELP caduceus_things_total Things done"), text);
        assertTrue(text.contains("caduceus_things_total{kind=\"a\"} 3.0"), text);
        assertTrue(text.contains("caduceus_things_total{kind=\"b\"} 1.0"), text);
        assertTrue(text.contains("caduceus_work_seconds_bucket{le=\"0.025\"} 1"), text);
        assertTrue(text.contains("caduceus_work_seconds_bucket{le=\"0.01\"} 0"), text);
        assertTrue(text.contains("caduceus_work_seconds_count 1"), text);
        assertTrue(text.contains("caduceus_level 7.0"), text);
        level.set(9);
        assertTrue(text().contains("caduceus_level 9.0"), "a gauge is read at every scrape");
    }

    @Test
    void aPluginsNamesCarryItsId() {
        registry.plugin("endpoint-jobs").counter("fired", "Jobs fired").inc();
        assertTrue(text().contains("caduceus_endpoint_jobs_fired_total 1.0"), text());
    }

    @Test
    void askingAgainReturnsTheSameInstrumentAndAnotherShapeIsRefused() {
        var metrics = registry.plugin("p");
        var first = metrics.counter("calls", "Calls", "tool");
        assertSame(first, metrics.counter("calls", "Calls", "tool"));
        assertThrows(IllegalArgumentException.class, () -> metrics.counter("calls", "Calls", "other"));
        assertThrows(IllegalArgumentException.class, () -> metrics.histogram("calls", "Calls", List.of(1.0)));
        assertThrows(IllegalArgumentException.class, () -> metrics.counter("Bad-Name", "x"));
        assertThrows(IllegalArgumentException.class, () -> metrics.counter("calls_total", "x"));
        assertThrows(IllegalArgumentException.class, () -> first.inc("a", "b"), "one value per label");
        assertThrows(IllegalArgumentException.class, () -> first.add(-1, "a"));
        assertThrows(IllegalArgumentException.class,
                () -> metrics.histogram("sizes", "x", List.of(2.0, 1.0)), "buckets must ascend");
    }

    @Test
    void labelCombinationsBeyondTheCapAreFoldedIntoOther() {
        var counter = registry.host().counter("hits", "Hits", "id");
        for (int i = 0; i < Metrics.MAX_SERIES + 500; i++) counter.inc("id-" + i);
        var text = text();
        long series = text.lines().filter(l -> l.startsWith("caduceus_hits_total{")).count();
        assertEquals(Metrics.MAX_SERIES + 1, series, "the cap plus one 'other' series");
        assertTrue(text.contains("caduceus_hits_total{id=\"other\"} 500.0"), text);
    }

    @Test
    void openMetricsWhenAskedAndPrometheusTextOtherwise() {
        registry.host().counter("hits", "Hits").inc();
        var open = registry.scrape("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
        assertTrue(open.contentType().startsWith("application/openmetrics-text"), open.contentType());
        var body = new String(open.body(), StandardCharsets.UTF_8);
        assertTrue(body.endsWith("# EOF\n"), body);
        var plain = registry.scrape("text/plain");
        assertTrue(plain.contentType().startsWith("text/plain; version=0.0.4"), plain.contentType());
        assertFalse(new String(plain.body(), StandardCharsets.UTF_8).contains("# EOF"));
    }

    @Test
    void jvmAndProcessMetricsAreThere() {
        registry.registerJvm();
        var text = text();
        for (var name : List.of("jvm_memory_used_bytes", "jvm_gc_collection_seconds", "jvm_threads_current",
                "process_resident_memory_bytes", "process_open_fds"))
            assertTrue(text.contains(name), name + " in\n" + text.lines().filter(l -> l.startsWith("# HELP")).toList());
    }

    @Test
    void nativeMemoryMetricsOnlyWhenTheJvmTracksNativeMemory() {
        assertTrue(MetricsRegistry.tracksNativeMemory(List.of("-Xmx1g", "-XX:NativeMemoryTracking=summary")));
        assertTrue(MetricsRegistry.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=detail")));
        assertFalse(MetricsRegistry.tracksNativeMemory(List.of("-Xmx1g")));
        assertFalse(MetricsRegistry.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=summary", "-XX:NativeMemoryTracking=off")));
    }
}
