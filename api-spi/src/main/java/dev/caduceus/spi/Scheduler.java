package dev.caduceus.spi;

import java.time.Duration;

/**
 * Delayed and periodic tasks for plugins.
 *
 * <p>Threading: tasks run on virtual threads with the plugin's context class loader; a periodic task
 * never overlaps itself (the next run is scheduled after the previous one ends). A task that throws
 * is logged and, if periodic, keeps its schedule.
 *
 * <p>Lifecycle: tasks fire only after boot; every task of a plugin is cancelled before its
 * {@link PlatformPlugin#stop}.
 */
public interface Scheduler {

    /** Runs {@code task} once after {@code delay}. */
    Task schedule(String name, Duration delay, Runnable task);

    /** Runs {@code task} after {@code initialDelay}, then {@code period} after each run ends. */
    Task scheduleWithFixedDelay(String name, Duration initialDelay, Duration period, Runnable task);

    /** A scheduled task. Thread-safe. */
    interface Task {
        /** Cancels future runs; a run in progress is interrupted. Idempotent. */
        void cancel();

        /** The name given when scheduling, shown in logs. */
        String name();
    }
}
