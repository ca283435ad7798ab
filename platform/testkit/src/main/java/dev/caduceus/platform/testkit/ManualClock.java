package dev.caduceus.platform.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A UTC clock that moves only when a test says so: inject it where production code measures a grace,
 * a timeout or an age, and {@link #advance} it instead of sleeping. Thread-safe.
 */
public final class ManualClock extends Clock {
    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = start;
    }

    public void advance(Duration d) {
        synchronized (this) {
            now = now.plus(d);
        }
    }

    public void set(Instant instant) { now = instant; }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }

    @Override public Clock withZone(ZoneId zone) { return this; }

    @Override public Instant instant() { return now; }
}
