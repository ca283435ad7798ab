package dev.caduceus.plugin.toolsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.support.services.BatchCatalog;
import dev.caduceus.support.services.BatchCatalog.Distribution;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Hermes batch distributions, row by row, including the key order (the sampling order): the
 * plugin's {@code BatchCatalog} on the real host ({@link TestHost} with this plugin's jar), as the host
 * hands it to the batch runner or another plugin ({@code ctx.services(BatchCatalog.class)}).
 * ({@code GET /v1/capabilities} lists them too, sorted by toolset: it cannot show the order.)
 */
class DistributionsTest {
    /** name → "toolset=percent …" in the spec's Order column. */
    static final Map<String, String> TABLE = new LinkedHashMap<>();
    static {
        TABLE.put("default", "web=100 vision=100 image_gen=100 terminal=100 file=100 moa=100 browser=100");
        TABLE.put("image_gen", "image_gen=90 vision=90 web=55 terminal=45 moa=10");
        TABLE.put("research", "web=90 browser=70 vision=50 moa=40 terminal=10");
        TABLE.put("science", "web=94 terminal=94 file=94 vision=65 browser=50 image_gen=15 moa=10");
        TABLE.put("development", "terminal=80 file=80 moa=60 web=30 vision=10");
        TABLE.put("safe", "web=80 browser=70 vision=60 image_gen=60 moa=50");
        TABLE.put("balanced", "web=50 vision=50 image_gen=50 terminal=50 file=50 moa=50 browser=50");
        TABLE.put("minimal", "web=100");
        TABLE.put("terminal_only", "terminal=100 file=100");
        TABLE.put("terminal_web", "terminal=100 file=100 web=100");
        TABLE.put("creative", "image_gen=90 vision=90 web=30");
        TABLE.put("reasoning", "moa=90 web=30 terminal=20");
        TABLE.put("browser_use", "browser=100 web=80 vision=70");
        TABLE.put("browser_only", "browser=100");
        TABLE.put("browser_tasks", "browser=97 vision=12 terminal=15");
        TABLE.put("terminal_tasks", "terminal=97 file=97 web=97 browser=75 vision=50 image_gen=10");
        TABLE.put("mixed_tasks", "browser=92 terminal=92 file=92 web=35 vision=15 image_gen=15");
    }

    @Test
    void contributesEveryHermesDistributionWithItsPercentsInSpecOrder() {
        List<Distribution> contributed;
        try (var host = TestHost.builder().plugins("toolsets-hermes").start()) {
            var catalogs = host.services(BatchCatalog.class);
            assertEquals(1, catalogs.size(), "one catalog, this plugin's");
            contributed = catalogs.getFirst().distributions();
        }
        var byName = contributed.stream().collect(Collectors.toMap(Distribution::name, d -> d));
        assertEquals(TABLE.keySet(), byName.keySet());
        TABLE.forEach((name, row) -> {
            var spec = byName.get(name);
            var parts = new ArrayList<String>();
            spec.toolsetPercent().forEach((t, p) -> parts.add(t + "=" + p));
            assertEquals(List.of(row.split(" ")), parts, name);
            assertFalse(spec.description().isBlank(), name);
        });
    }
}
