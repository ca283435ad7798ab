package dev.caduceus.platform.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.Cancellation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model provider the agent loop and plain calls see: a call's {@code model} picks a route (the default route
 * for the configured model name, a route by its name, and the default route's deployments with the name passed
 * upstream for any other); within the route, a deployment among the least busy, by weight, skipping those cooling
 * down or at their requests-per-minute cap. A deployment that fails with an error of its own (no connection, a
 * timeout, 429, 5xx; 401, 403 or 404 for its key or model) before any text, reasoning or tool call reached the caller
 * is put in cooldown and the call goes to another at once; when every deployment of the route failed, or the upstream says the prompt is past its
 * context, the route's {@code fallbacks} are tried in order. Nothing is sent again once a token reached the caller:
 * that failure is final. When all failed, the last error is thrown as it was (retryable ones are then retried by the
 * agent loop's back-off, which starts over with the deployments that recovered).
 *
 * <p>Threading: thread-safe; {@link #stream} blocks on the caller's thread, as the providers' do.
 */
public final class RoutedProvider implements ModelProvider {
    private static final Logger LOG = LoggerFactory.getLogger(RoutedProvider.class);
    private static final List<String> CONTEXT_PHRASES = List.of("context length", "maximum context", "token limit",
            "too many tokens", "reduce the length", "exceeds the limit", "context window");
    /** How many routes one call may go through (the route and its fallbacks, theirs included). */
    static final int MAX_ROUTES = 4;

    private final RouteTable table;
    private final Duration cooldown;
    private final Clock clock;
    private final ModelProvider primary;

    /**
     * @param primary  the configured provider ({@code id}, {@code configured}: the routes add to it)
     * @param cooldown the first cooldown of a failing deployment ({@code model.cooldown_seconds})
     */
    public RoutedProvider(ModelProvider primary, RouteTable table, Duration cooldown, Clock clock) {
        this.primary = requireNonNull(primary, "primary");
        this.table = requireNonNull(table, "table");
        this.cooldown = requireNonNull(cooldown, "cooldown");
        this.clock = requireNonNull(clock, "clock");
    }

    @Override
    public String id() {
        return primary.id();
    }

    @Override
    public boolean configured() {
        return primary.configured();
    }

    public RouteTable table() {
        return table;
    }

    /**
     * Whether another deployment may succeed where this one failed: what the agent loop would retry (no connection, a
     * timeout, 429, 5xx), and a 401, 403 or 404, which say this deployment's key or model is wrong, not the request.
     */
    static boolean deploymentsFault(ModelException e) {
        return e.retryable() || e.status() == 401 || e.status() == 403 || e.status() == 404;
    }

    /** Whether an upstream's answer says the prompt is past the model's context. */
    public static boolean contextLength(ModelException e) {
        var message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return e.status() == 400 && CONTEXT_PHRASES.stream().anyMatch(message::contains);
    }

    /** Which route and deployment answered a call. Immutable. */
    public record Served(String route, Deployment deployment) {}

    @Override
    public void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException {
        serve(request, sink, cancel);
    }

    /** {@link #stream}, answering which route and deployment answered. */
    public Served serve(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException {
        var first = table.route(request.model());
        boolean direct = first.isEmpty(); // a name of no route: the default route's deployments, the name passed on
        var routes = chain(first.orElse(table.defaultRoute()));
        var tracked = new Tracked(sink);
        long promptTokens = -1; // estimated once, when a deployment has a context window
        ModelException last = null;
        for (var route : routes) {
            var tried = new HashSet<Deployment>();
            for (var d = pick(route, tried); d != null; d = pick(route, tried)) {
                tried.add(d);
                if (d.contextWindow() > 0) {
                    if (promptTokens < 0) promptTokens = estimateTokens(request);
                    if (promptTokens > d.contextWindow()) {
                        last = new ModelException("The prompt (about " + promptTokens + " tokens) is past the context window of "
                                + d.name() + " (" + d.contextWindow() + " tokens)", false, 400, null, null);
                        continue; // unsent: another deployment of the route may read more; else the fallbacks
                    }
                }
                var call = direct ? request : withModel(request, d.model());
                d.started(clock.millis());
                try {
                    d.provider().stream(call, tracked, cancel);
                    d.succeeded();
                    if (tracked.usage != null) d.used(clock.millis(), tracked.usage.totalTokens());
                    return new Served(route.name(), d);
                } catch (ModelException e) {
                    if (tracked.emitted || cancel.isCancelled()) throw e; // never sent again once a token reached the caller
                    last = e;
                    if (contextLength(e)) break; // this route's deployments serve one model: try the fallbacks
                    if (!deploymentsFault(e)) throw e; // the request's fault: another deployment would refuse it too
                    d.failed(clock.millis(), cooldown, e.retryAfter().orElse(null), e.getMessage());
                    LOG.warn("Model deployment {} failed ({}); {}", d.name(), e.getMessage(),
                            tried.size() < route.deployments().size() ? "trying another" : "route " + route.name() + " exhausted");
                } finally {
                    d.ended();
                }
            }
        }
        if (last != null) throw last;
        throw rateLimited(routes);
    }

    private static ModelRequest withModel(ModelRequest r, String model) {
        return model.equals(r.model()) ? r : new ModelRequest(model, r.messages(), r.tools(), r.options(), r.stream(),
                r.toolChoice(), r.parallelToolCalls());
    }

    /** The route and its fallbacks, theirs after them, each once, at most {@link #MAX_ROUTES}. */
    List<Route> chain(Route route) {
        if (route.fallbacks().isEmpty()) return List.of(route);
        var names = new LinkedHashSet<String>();
        var queue = new ArrayList<Route>(List.of(route));
        var out = new ArrayList<Route>();
        for (int i = 0; i < queue.size() && out.size() < MAX_ROUTES; i++) {
            var next = queue.get(i);
            if (!names.add(next.name())) continue;
            out.add(next);
            for (var fallback : next.fallbacks()) table.route(fallback).ifPresent(queue::add);
        }
        return out;
    }

    /**
     * The next deployment of {@code route} not yet {@code tried}: among those neither cooling down nor at their rpm cap,
     * the least busy, by weight among equals; when all untried ones cool down, the one that recovers first (a cooldown
     * is a guess, and a call is better than none); null when every untried one is at its cap, or none is left.
     */
    Deployment pick(Route route, Set<Deployment> tried) {
        long now = clock.millis();
        var ready = new ArrayList<Deployment>();
        Deployment soonest = null;
        for (var d : route.deployments()) {
            if (tried.contains(d) || !d.underRpm(now) || !d.underTpm(now)) continue;
            if (!d.cooling(now)) ready.add(d);
            else if (soonest == null || d.coolingUntil() < soonest.coolingUntil()) soonest = d;
        }
        if (ready.isEmpty()) return soonest;
        var busy = new int[ready.size()]; // read once: other calls move these while this one picks
        int least = Integer.MAX_VALUE;
        for (int i = 0; i < busy.length; i++) least = Math.min(least, busy[i] = ready.get(i).inFlight());
        var idlest = new ArrayList<Deployment>();
        int weights = 0;
        for (int i = 0; i < busy.length; i++) {
            if (busy[i] != least) continue;
            idlest.add(ready.get(i));
            weights += ready.get(i).weight();
        }
        int draw = ThreadLocalRandom.current().nextInt(weights);
        for (var d : idlest) {
            draw -= d.weight();
            if (draw < 0) return d;
        }
        return idlest.getLast();
    }

    /**
     * A prompt's tokens, roughly: a quarter of its characters (text, tool calls' arguments, tools' schemas), as the
     * common rule of thumb for English; only for the context-window check, which leaves the exact verdict to the upstream.
     */
    static long estimateTokens(ModelRequest request) {
        long chars = 0;
        for (var m : request.messages()) {
            var text = m.text();
            if (text != null) chars += text.length();
            if (m.toolCalls() != null)
                for (var c : m.toolCalls()) chars += c.name().length() + (c.arguments() == null ? 0 : c.arguments().toString().length());
        }
        for (var t : request.tools()) chars += t.name().length() + t.description().length() + t.parameters().toString().length();
        return chars / 4;
    }

    /** Every deployment of every route was at its requests-per-minute cap: 429, retryable when one frees. */
    private ModelException rateLimited(List<Route> routes) {
        long now = clock.millis();
        long free = Long.MAX_VALUE;
        for (var route : routes) for (var d : route.deployments()) free = Math.min(free, d.rpmFreeAt(now));
        var wait = Duration.ofMillis(Math.max(1_000, free - now));
        return new ModelException("Every deployment of model route " + routes.getFirst().name()
                + " is at its requests- or tokens-per-minute limit", true, 429, wait, null);
    }

    /** Forwards a call's events, noting whether anything reached the caller. */
    private static final class Tracked implements Consumer<ModelEvent> {
        private final Consumer<ModelEvent> sink;
        boolean emitted;
        dev.caduceus.spi.message.Usage usage;

        Tracked(Consumer<ModelEvent> sink) {
            this.sink = sink;
        }

        @Override
        public void accept(ModelEvent event) {
            switch (event) {
                case ModelEvent.TextDelta d -> emitted |= !d.text().isEmpty();
                case ModelEvent.ReasoningDelta r -> emitted |= !r.text().isEmpty();
                case ModelEvent.ToolCall c -> emitted = true;
                case ModelEvent.UsageReport u -> usage = u.usage();
                default -> { }
            }
            sink.accept(event);
        }
    }
}
