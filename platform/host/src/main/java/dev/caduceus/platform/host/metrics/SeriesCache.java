package dev.caduceus.platform.host.metrics;

import dev.caduceus.spi.metrics.Metrics;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data points of one labelled instrument by label values, at most {@link Metrics#MAX_SERIES}:
 * the values of any further combination are all reported as {@code other} (logged once), so a caller
 * that labels by something unbounded costs a bounded number of series. Also the fast path: a hit is
 * one map lookup, without the client library's own label handling. Thread-safe.
 *
 * @param <P> the library's data point type
 */
final class SeriesCache<P> {
    private static final Logger LOG = LoggerFactory.getLogger(SeriesCache.class);
    static final String OTHER = "other";

    private final String name;
    private final List<String> labelNames;
    private final Function<String[], P> create;
    private final ConcurrentHashMap<Object, P> points = new ConcurrentHashMap<>();
    private volatile boolean warned;

    SeriesCache(String name, List<String> labelNames, Function<String[], P> create) {
        this.name = name;
        this.labelNames = labelNames;
        this.create = create;
    }

    /** The data point of these label values (one per label name). */
    P get(String[] values) {
        if (values.length != labelNames.size())
            throw new IllegalArgumentException(name + " takes " + labelNames.size() + " label values " + labelNames
                    + ", got " + values.length);
        // looked up with the caller's values as they are; a new series keeps a copy of its own
        Object key = values.length == 1 ? value(values[0]) : new Key(values);
        var point = points.get(key);
        if (point != null) return point;
        if (points.size() >= Metrics.MAX_SERIES) return overflow();
        var stored = cleaned(values);
        return points.computeIfAbsent(values.length == 1 ? stored[0] : new Key(stored), k -> create.apply(stored));
    }

    /**
     * Several label values as a map key, compared element by element (a null value is the empty one): a key made
     * for a lookup copies nothing (it was a list of a cleaned copy, and iterating it for its hash made an iterator).
     */
    private record Key(String[] values) {
        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key other) || other.values.length != values.length) return false;
            for (int i = 0; i < values.length; i++) if (!value(values[i]).equals(value(other.values[i]))) return false;
            return true;
        }

        @Override
        public int hashCode() {
            int h = 1;
            for (var v : values) h = 31 * h + value(v).hashCode();
            return h;
        }

        @Override
        public String toString() {
            return Arrays.toString(values);
        }
    }

    private P overflow() {
        if (!warned) {
            warned = true;
            LOG.warn("Metric {} has {} label combinations; further ones are counted as '{}'", name,
                    Metrics.MAX_SERIES, OTHER);
        }
        var others = new String[labelNames.size()];
        Arrays.fill(others, OTHER);
        Object key = others.length == 1 ? OTHER : new Key(others);
        return points.computeIfAbsent(key, k -> create.apply(others));
    }

    private static String[] cleaned(String[] values) {
        var copy = new String[values.length];
        for (int i = 0; i < values.length; i++) copy[i] = value(values[i]);
        return copy;
    }

    private static String value(String v) {
        return v == null ? "" : v;
    }
}
