package dev.caduceus.platform.testkit;

import dev.caduceus.spi.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link Scheduler} that never fires by itself: a test calls {@link #runAll()} to run every
 * uncancelled task once, on the test thread. Thread-safe.
 */
public final class ManualScheduler implements Scheduler {
    private final List<ManualTask> tasks = new CopyOnWriteArrayList<>();

    @Override
    public Task schedule(String name, Duration delay, Runnable task) {
        return add(name, task, false);
    }

    @Override
    public Task scheduleWithFixedDelay(String name, Duration initialDelay, Duration period, Runnable task) {
        return add(name, task, true);
    }

    private Task add(String name, Runnable body, boolean periodic) {
        var task = new ManualTask(name, body, periodic);
        tasks.add(task);
        return task;
    }

    /** Runs each live task once; one-shot tasks are then removed. */
    public void runAll() {
        for (var task : tasks) {
            if (task.cancelled) continue;
            task.body.run();
            if (!task.periodic) tasks.remove(task);
        }
    }

    /** Names of tasks not yet cancelled. */
    public List<String> liveTasks() {
        return tasks.stream().filter(t -> !t.cancelled).map(ManualTask::name).toList();
    }

    private static final class ManualTask implements Task {
        private final String name;
        private final Runnable body;
        private final boolean periodic;
        private volatile boolean cancelled;

        ManualTask(String name, Runnable body, boolean periodic) {
            this.name = name;
            this.body = body;
            this.periodic = periodic;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public String name() {
            return name;
        }
    }
}
