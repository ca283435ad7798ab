package dev.caduceus.platform.host;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting in the host's tests: poll a condition until it holds or a deadline passes, then fail naming what was
 * awaited. The host's tests cannot use the testkit's {@code Eventually} (the testkit depends on the host).
 */
public final class Poll {
    private static final long EVERY_NANOS = Duration.ofMillis(10).toNanos();

    private Poll() {}

    /** Waits until {@code condition} holds; fails after {@code deadline}. */
    public static void until(Duration deadline, String what, BooleanSupplier condition) {
        until(deadline, what, condition::getAsBoolean, held -> held);
    }

    /** Reads {@code probe} until {@code accept} takes its value, and returns that value; fails after {@code deadline}. */
    public static <T> T until(Duration deadline, String what, Supplier<T> probe, Predicate<? super T> accept) {
        long end = System.nanoTime() + deadline.toNanos();
        T last = probe.get();
        while (!accept.test(last)) {
            if (System.nanoTime() > end) throw new AssertionError(what + ": not within " + deadline + "; last: " + last);
            LockSupport.parkNanos(EVERY_NANOS);
            if (Thread.currentThread().isInterrupted()) throw new AssertionError("interrupted waiting until " + what);
            last = probe.get();
        }
        return last;
    }
}
