package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A {@link ScriptedUpstream} turn that is held at the model until the test releases it: enqueue it
 * with {@link ScriptedUpstream#enqueue(Function)}, {@link #awaitArrival()} to know the request is in
 * flight, then {@link #release()}. Replaces "delay the turn long enough and hope". Thread-safe; one
 * request per instance. A turn never released is answered after a minute, so a failed test ends.
 */
public final class HeldTurn implements Function<JsonNode, Turn> {
    private final Turn turn;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    public HeldTurn(Turn turn) {
        this.turn = turn;
    }

    /** Called by the upstream's request thread: signals the arrival and waits for the release. */
    @Override
    public Turn apply(JsonNode body) {
        arrived.countDown();
        try {
            released.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return turn;
    }

    /** Returns once the request reached the upstream; fails after 30 s. */
    public void awaitArrival() throws InterruptedException {
        if (!arrived.await(30, TimeUnit.SECONDS)) throw new AssertionError("the held turn's request never arrived");
    }

    public boolean arrived() {
        return arrived.getCount() == 0;
    }

    /** Lets the upstream answer. */
    public void release() {
        released.countDown();
    }
}
