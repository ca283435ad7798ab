package dev.caduceus.platform.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.model.ModelProvider;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One upstream serving a route: its provider (bound to the deployment's base URL and key), the upstream model id,
 * its weight and requests-per-minute cap, and what the router learned of it: calls in flight, failures in a row
 * and until when it is passed over (cooldown).
 *
 * <p>Threading: thread-safe; the cooldown and minute window are guarded by this object's monitor.
 */
public final class Deployment {
    private final String name;
    private final ModelProvider provider;
    private final String model;
    private final int weight;
    private final int rpm;
    private final long tpm;
    private final long contextWindow;
    private final Price price;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ArrayDeque<Long> minute = new ArrayDeque<>(); // call start times (ms) of the last minute, when rpm > 0
    private final ArrayDeque<long[]> tokenMinute = new ArrayDeque<>(); // {end time ms, tokens} of the last minute, when tpm > 0
    private long tokensInMinute;
    private int failuresInARow;
    private long coolingUntil; // epoch ms; 0: not cooling
    private String lastFailure;

    /**
     * @param name     how logs, metrics and the health page name it: {@code <route>/<index>}
     * @param model    the upstream's model id
     * @param weight   its share of the calls among deployments equally busy (at least 1)
     * @param rpm      calls a minute at most (0: no cap)
     */
    public Deployment(String name, ModelProvider provider, String model, int weight, int rpm) {
        this(name, provider, model, weight, rpm, 0, 0, Price.FREE);
    }

    /**
     * @param tpm           tokens a minute at most (0: no cap)
     * @param contextWindow the most tokens its model reads (0: unknown): a longer prompt goes to the fallbacks unsent
     * @param price         what its tokens cost
     */
    public Deployment(String name, ModelProvider provider, String model, int weight, int rpm, long tpm, long contextWindow,
                      Price price) {
        this.tpm = Math.max(0, tpm);
        this.contextWindow = Math.max(0, contextWindow);
        this.price = requireNonNull(price, "price");
        this.name = requireNonNull(name, "name");
        this.provider = requireNonNull(provider, "provider");
        this.model = requireNonNull(model, "model");
        if (weight < 1) throw new IllegalArgumentException("weight must be at least 1");
        this.weight = weight;
        this.rpm = Math.max(0, rpm);
    }

    public String name() { return name; }

    public String model() { return model; }

    public int weight() { return weight; }

    ModelProvider provider() { return provider; }

    /** One call to this deployment alone, outside the routing (no cooldown, no count): {@code caduceus models test}. */
    public void probe(dev.caduceus.spi.model.ModelRequest request, java.util.function.Consumer<dev.caduceus.spi.model.ModelEvent> sink,
                      dev.caduceus.spi.tool.Cancellation cancel) throws dev.caduceus.spi.model.ModelException {
        provider.stream(request, sink, cancel);
    }

    public Price price() { return price; }

    /** The most tokens its model reads, or 0 when not configured. */
    public long contextWindow() { return contextWindow; }

    int inFlight() { return inFlight.get(); }

    void started(long nowMillis) {
        inFlight.incrementAndGet();
        if (rpm > 0) synchronized (this) {
            minute.addLast(nowMillis);
        }
    }

    void ended() {
        inFlight.decrementAndGet();
    }

    /** Whether its minute allows one more call now. */
    synchronized boolean underRpm(long nowMillis) {
        if (rpm == 0) return true;
        while (!minute.isEmpty() && minute.peekFirst() <= nowMillis - 60_000) minute.removeFirst();
        return minute.size() < rpm;
    }

    /** Counts a call's tokens against its tokens per minute. */
    void used(long nowMillis, long tokens) {
        if (tpm == 0 || tokens <= 0) return;
        synchronized (this) {
            tokenMinute.addLast(new long[] {nowMillis, tokens});
            tokensInMinute += tokens;
        }
    }

    /** Whether its minute's tokens allow one more call now. */
    synchronized boolean underTpm(long nowMillis) {
        if (tpm == 0) return true;
        while (!tokenMinute.isEmpty() && tokenMinute.peekFirst()[0] <= nowMillis - 60_000)
            tokensInMinute -= tokenMinute.removeFirst()[1];
        return tokensInMinute < tpm;
    }

    /** When its minute allows a call again (ms), for a route whose every deployment is at its cap. */
    synchronized long rpmFreeAt(long nowMillis) {
        long free = underRpm(nowMillis) || minute.isEmpty() ? nowMillis : minute.peekFirst() + 60_000;
        if (!underTpm(nowMillis) && !tokenMinute.isEmpty()) free = Math.max(free, tokenMinute.peekFirst()[0] + 60_000);
        return free;
    }

    synchronized boolean cooling(long nowMillis) {
        return coolingUntil > nowMillis;
    }

    synchronized long coolingUntil() {
        return coolingUntil;
    }

    synchronized void succeeded() {
        failuresInARow = 0;
        coolingUntil = 0;
        lastFailure = null;
    }

    /** Passed over for {@code base} doubled with each failure in a row (at most 12×), or the upstream's Retry-After. */
    synchronized void failed(long nowMillis, Duration base, Duration retryAfter, String why) {
        failuresInARow++;
        long backOff = base.toMillis() * Math.min(12, 1L << Math.min(4, failuresInARow - 1));
        if (retryAfter != null) backOff = Math.min(Math.max(backOff, retryAfter.toMillis()), base.toMillis() * 12);
        coolingUntil = nowMillis + backOff;
        lastFailure = why;
    }

    /** What the health page shows: ok, or cooling down until when and why. Immutable. */
    public record State(String deployment, String model, String state, long coolingUntil, String lastFailure, int inFlight) {}

    public synchronized State state(long nowMillis) {
        boolean cooling = coolingUntil > nowMillis;
        return new State(name, model, cooling ? "cooling_down" : failuresInARow > 0 ? "failing" : "ok",
                cooling ? coolingUntil : 0, lastFailure, inFlight.get());
    }
}
