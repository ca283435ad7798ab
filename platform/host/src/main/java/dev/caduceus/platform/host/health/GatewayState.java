package dev.caduceus.platform.host.health;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/** Where the process is in its life, shown as {@code gateway_state}. Thread-safe. */
public final class GatewayState {
    public enum State { STARTING, RUNNING, DRAINING }

    private final AtomicReference<State> state = new AtomicReference<>(State.STARTING);

    public void set(State next) {
        state.set(next);
    }

    public State get() {
        return state.get();
    }

    public String wireName() {
        return state.get().name().toLowerCase(Locale.ROOT);
    }
}
