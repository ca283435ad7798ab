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
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ArrayDeque<Long> minute = new ArrayDeque<>(); // call start times (ms) of the last minute, when rpm > 0
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

    /** When its minute allows a call again (ms), for a route whose every deployment is at its cap. */
    synchronized long rpmFreeAt(long nowMillis) {
        return underRpm(nowMillis) || minute.isEmpty() ? nowMillis : minute.peekFirst() + 60_000;
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
