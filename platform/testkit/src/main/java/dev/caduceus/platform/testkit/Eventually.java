package dev.caduceus.platform.testkit;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Polls until something holds or a deadline passes: how a test waits for a state it cannot be
 * signalled about (a process starting, a row appearing, a thread parking). The deadline only bounds a
 * failure; a passing test never depends on how long the wait took. Prefer a latch the awaited code
 * counts down where the test owns that code. Stateless; safe from any thread.
 */
public final class Eventually {
    private static final Duration POLL = Duration.ofMillis(10);

    private Eventually() {}

    /** A condition that may throw, such as an HTTP request. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A value read on each poll, such as a status. */
    @FunctionalInterface
    public interface Probe<T> {
        T read() throws Exception;
    }

    /** Returns once {@code condition} holds; fails with {@code what} if it has not by {@code deadline}. */
    public static void await(Duration deadline, String what, Condition condition) throws InterruptedException {
        await(deadline, what, condition::holds, Boolean.TRUE::equals);
    }

    /**
     * Returns the first value of {@code probe} that {@code accept} takes; fails with {@code what} and
     * the last value read if none has by {@code deadline}. An exception from the probe fails at once.
     */
    public static <T> T await(Duration deadline, String what, Probe<T> probe, Predicate<? super T> accept)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            T value;
            try {
                value = probe.read();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(what + ": the probe failed", e);
            }
            if (accept.test(value)) return value;
            if (System.nanoTime() - end > 0) throw new AssertionError(what + " (not within " + deadline + "; last: " + value + ")");
            Thread.sleep(POLL);
        }
    }
}
