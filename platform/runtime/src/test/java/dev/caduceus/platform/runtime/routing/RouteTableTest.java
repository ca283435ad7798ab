package dev.caduceus.platform.runtime.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.Cancellation;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading {@code model.*} into routes: prices, tokens per minute, context windows, and what it does not know. */
class RouteTableTest {
    @TempDir
    Path dir;

    /** A provider that answers nothing: the table only binds it to each deployment's endpoint. */
    static final class Idle implements ModelProvider {
        @Override public String id() { return "openai"; }
        @Override public boolean configured() { return true; }
        @Override public void stream(ModelRequest r, Consumer<ModelEvent> sink, Cancellation c) { }
        @Override public ModelProvider at(Endpoint endpoint) { return this; }
    }

    PlatformConfig config(String yaml) throws Exception {
        var home = Files.createDirectories(dir.resolve("home"));
        Files.writeString(home.resolve("config.yaml"), yaml);
        return new ConfigLoader(Map.of("CADUCEUS_HOME", home.toString()), dir.resolve("user"))
                .load(Optional.empty(), List.of()).config();
    }

    RouteTable table(String yaml) throws Exception {
        return RouteTable.from(config(yaml), new Idle(), id -> Optional.empty(), name -> Optional.empty());
    }

    @Test
    void pricesAreReadPerDeploymentWithTheirDefaults() throws Exception {
        var table = table("""
                model:
                  base_url: http://127.0.0.1:9/v1
                  name: main
                  price: {input: 3, output: 15}
                  routes:
                    fast:
                      deployments:
                        - {base_url: "http://127.0.0.1:9/v1", model: a, price: {input: "0.15", cached_input: 0.075, output: 0.6, reasoning: 1.2}, tpm: "5000", context_window: 128000}
                """);
        var main = table.defaultRoute().deployments().getFirst().price();
        assertEquals(new Price(3_000_000, 3_000_000, 15_000_000, 15_000_000), main, "cached at input, reasoning at output");
        var fast = table.route("fast").orElseThrow().deployments().getFirst();
        assertEquals(new Price(150_000, 75_000, 600_000, 1_200_000), fast.price());
        assertEquals(128_000, fast.contextWindow());
        assertEquals(List.of(), table.warnings());
    }

    @Test
    void aCallsCostCountsEachKindOfTokenAtItsPrice() {
        var price = Price.perMillion(new BigDecimal("2.5"), new BigDecimal("1.25"), new BigDecimal("10"), new BigDecimal("20"));
        // 600 uncached + 400 cached prompt tokens, 300 output + 200 reasoning completion tokens
        assertEquals(9_000_000_000L, price.cost(new Usage(1000, 500, 1500, 200, 400)));
        assertEquals(0, Price.FREE.cost(new Usage(1000, 500, 1500, 200, 400)));
        // counts a provider got wrong (more cached than prompt tokens) are bounded, never negative
        assertEquals(1000 * 1_250_000L, price.cost(new Usage(1000, 0, 1000, 0, 5000)));
        var tooFine = assertThrows(IllegalArgumentException.class,
                () -> Price.perMillion(new BigDecimal("0.0000001"), null, BigDecimal.ONE, null));
        assertTrue(tooFine.getMessage().contains("more than 6 decimals"), tooFine.getMessage());
    }

    @Test
    void fieldsNoRouteReadsAreNamedNotIgnoredSilently() throws Exception {
        var table = table("""
                model:
                  base_url: http://127.0.0.1:9/v1
                  name: main
                  routes:
                    fast: {base_url: "http://127.0.0.1:9/v1", wieght: 2, price: {input: 1, outptu: 2}}
                    pool: {deployments: [{base_url: "http://127.0.0.1:9/v1"}], fallback: [fast]}
                """);
        var keys = table.warnings().stream().map(ConfigException::key).toList();
        assertEquals(List.of("model.routes.fast.wieght", "model.routes.fast.price.outptu", "model.routes.pool.fallback"), keys);
        assertTrue(table.warnings().getFirst().getMessage().contains("is not a route setting and is ignored"),
                table.warnings().getFirst().getMessage());
    }

    @Test
    void aBadPriceStopsTheBootNamingItsKey() throws Exception {
        for (var price : List.of("{input: -1}", "{input: cheap}", "3", "{output: 0.0000001}")) {
            var e = assertThrows(ConfigException.class, () -> table("""
                    model:
                      base_url: http://127.0.0.1:9/v1
                      name: main
                      routes:
                        fast: {base_url: "http://127.0.0.1:9/v1", price: %s}
                    """.formatted(price)));
            assertTrue(e.key().startsWith("model.routes.fast.price"), price + ": " + e.key() + " " + e.getMessage());
        }
    }
}
