import dev.caduceus.platform.runtime.routing.Deployment;
import dev.caduceus.platform.runtime.routing.Route;
import dev.caduceus.platform.runtime.routing.RouteTable;
import dev.caduceus.platform.runtime.routing.RoutedProvider;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.Cancellation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the router adds to one model call, in process (issue 47): the same provider (one that answers at once with a
 * text delta, a usage report and a finish) called directly (A) and through a {@link RoutedProvider} whose route has
 * two deployments of it (B), blocks of {@code --calls} calls alternating for {@code --rounds} rounds after a
 * warm-up; the median over rounds of each block's mean ns per call. The end-to-end figure (two server processes) is
 * noisier than the difference: see {@code bench/model-failover}. Run through {@code bench/routing-overhead}.
 */
public final class RoutingOverheadBench {
    public static void main(String[] args) throws Exception {
        int calls = Integer.parseInt(arg(args, "--calls", "100000"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "11"));
        ModelProvider provider = new ModelProvider() {
            @Override
            public String id() {
                return "answers-at-once";
            }

            @Override
            public void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) {
                sink.accept(new ModelEvent.TextDelta("ok"));
                sink.accept(new ModelEvent.UsageReport(new Usage(10, 1, 11)));
                sink.accept(new ModelEvent.Finish(FinishReason.STOP));
            }
        };
        var route = new Route(RouteTable.DEFAULT, List.of(new Deployment("default/0", provider, "m", 1, 0),
                new Deployment("default/1", provider, "m", 1, 0)), List.of());
        var table = tableOf(route);
        var routed = new RoutedProvider(provider, table, Duration.ofSeconds(5), Clock.systemUTC());
        var request = new ModelRequest("m", List.of(Message.user("hi")), List.of(), ModelOptions.DEFAULTS, true,
                ModelRequest.ToolChoice.AUTO, null);
        var events = new long[1];
        Consumer<ModelEvent> sink = e -> events[0]++;
        Cancellation cancel = new Cancellation() {
            @Override
            public boolean isCancelled() {
                return false;
            }

            @Override
            public AutoCloseable onCancel(Runnable callback) {
                return () -> { };
            }
        };
        for (int i = 0; i < 200_000; i++) {
            provider.stream(request, sink, cancel);
            routed.stream(request, sink, cancel);
        }
        var a = new ArrayList<Double>();
        var b = new ArrayList<Double>();
        for (int r = 0; r < rounds; r++) {
            for (var which : r % 2 == 0 ? List.of(provider, routed) : List.of(routed, provider)) {
                long t0 = System.nanoTime();
                for (int i = 0; i < calls; i++) which.stream(request, sink, cancel);
                double ns = (System.nanoTime() - t0) / (double) calls;
                (which == provider ? a : b).add(ns);
            }
        }
        double ma = median(a), mb = median(b);
        System.out.printf("%d rounds of %d calls: direct %.0f ns per call, routed %.0f ns per call: +%.0f ns (%d events)%n",
                rounds, calls, ma, mb, mb - ma, events[0]);
    }

    /** The default route alone, as {@code RouteTable.from} builds it for {@code model.deployments}. */
    static RouteTable tableOf(Route route) throws Exception {
        var constructor = RouteTable.class.getDeclaredConstructor(Route.class, java.util.Map.class);
        constructor.setAccessible(true);
        return constructor.newInstance(route, java.util.Map.of("m", route));
    }

    static double median(List<Double> values) {
        var sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals(name)) return args[i + 1];
        return fallback;
    }
}
