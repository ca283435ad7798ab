package dev.caduceus.platform.host.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.caduceus.spi.metrics.Metrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Series of several labels: found by their values, a missing value is the empty one, a new series keeps its own copy. */
class SeriesCacheTest {
    private final List<String[]> created = new ArrayList<>();
    private final SeriesCache<String[]> cache = new SeriesCache<>("m", List.of("a", "b"), values -> {
        created.add(values);
        return values;
    });

    @Test
    void theSameValuesFindTheSameSeriesAndOthersAnother() {
        var first = cache.get(new String[] {"x", "y"});
        assertSame(first, cache.get(new String[] {"x", "y"}));
        assertNotSame(first, cache.get(new String[] {"y", "x"}));
        assertNotSame(first, cache.get(new String[] {"xy", ""}));
        assertEquals(3, created.size());
    }

    @Test
    void aMissingValueIsTheEmptyOneAndTheCallersArrayIsNotKept() {
        var values = new String[] {null, "y"};
        var series = cache.get(values);
        assertArrayEquals(new String[] {"", "y"}, series);
        assertSame(series, cache.get(new String[] {"", "y"}));
        values[1] = "changed"; // the caller reuses its array
        assertSame(series, cache.get(new String[] {null, "y"}));
        assertEquals(1, created.size());
    }

    @Test
    void pastTheCapNewValuesShareTheOtherSeries() {
        for (int i = 0; i < Metrics.MAX_SERIES; i++) cache.get(new String[] {"v" + i, "w"});
        var other = cache.get(new String[] {"new", "one"});
        assertSame(other, cache.get(new String[] {"another", "one"}));
        assertEquals(Metrics.MAX_SERIES + 1, created.size());
    }
}
