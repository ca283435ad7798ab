package dev.caduceus.platform.host.schedule;

import dev.caduceus.spi.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's scheduler. One platform timer thread decides when tasks are due; each run executes on
 * its own virtual thread, wrapped by the owner's {@code wrap} (which sets the plugin's class loader).
 * Tasks scheduled before {@link #open()} wait for it: nothing fires during boot. A periodic task's
 * next run is scheduled after the previous one ends, so it never overlaps itself.
 */
public final class TaskScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskScheduler.class);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("caduceus-timer").daemon(true).factory());
    private final CountDownLatch opened = new CountDownLatch(1);
    private final Map<String, List<TaskImpl>> byOwner = new ConcurrentHashMap<>();

    /** Lets scheduled tasks fire (boot step 6 done). */
    public void open() {
        opened.countDown();
    }

    /** Whether the timer thread is alive (for the {@code background_queues} check). */
    public boolean running() {
        return !timer.isShutdown();
    }

    /** A {@link Scheduler} for one owner (a plugin id); {@code wrap} decorates every task run. */
    public Scheduler forOwner(String owner, UnaryOperator<Runnable> wrap) {
        return new Scheduler() {
            @Override
            public Task schedule(String name, Duration delay, Runnable task) {
                return add(owner, new TaskImpl(owner + "/" + name, wrap.apply(task), delay, null));
            }

            @Override
            public Task scheduleWithFixedDelay(String name, Duration initialDelay, Duration period, Runnable task) {
                if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("period must be > 0");
                return add(owner, new TaskImpl(owner + "/" + name, wrap.apply(task), initialDelay, period));
            }
        };
    }

    /**
     * Runs the task named {@code name} ({@code owner/name}, e.g. {@code endpoint-jobs/jobs-tick}) now and
     * returns when that run has ended; a periodic task's next run comes a period after it. A run already in
     * progress finishes first (a task never overlaps itself). For the test host: it turns a tick a test would
     * wait a whole period for into a call, with the real task on the real scheduler.
     *
     * @throws IllegalArgumentException no task of that name is scheduled (the message lists those that are)
     */
    public void runNow(String name) throws InterruptedException {
        var task = byOwner.values().stream().flatMap(List::stream).filter(t -> t.name.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no scheduled task " + name + "; scheduled: "
                        + byOwner.values().stream().flatMap(List::stream).map(t -> t.name).sorted().toList()));
        task.runNow();
    }

    /** Cancels every task of {@code owner} (before its plugin stops). */
    public void cancelAll(String owner) {
        var tasks = byOwner.remove(owner);
        if (tasks != null) tasks.forEach(TaskImpl::cancel);
    }

    @Override
    public void close() {
        byOwner.keySet().forEach(this::cancelAll);
        timer.shutdownNow();
    }

    private Scheduler.Task add(String owner, TaskImpl task) {
        byOwner.computeIfAbsent(owner, k -> new CopyOnWriteArrayList<>()).add(task);
        task.arm(task.initialDelay);
        return task;
    }

    private final class TaskImpl implements Scheduler.Task {
        private final String name;
        private final Runnable body;
        private final Duration initialDelay;
        private final Duration period;
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final ReentrantLock oneAtATime = new ReentrantLock();
        private volatile Future<?> pending;
        private volatile Thread running;

        TaskImpl(String name, Runnable body, Duration initialDelay, Duration period) {
            this.name = name;
            this.body = body;
            this.initialDelay = initialDelay.isNegative() ? Duration.ZERO : initialDelay;
            this.period = period;
        }

        void arm(Duration delay) {
            if (cancelled.get() || timer.isShutdown()) return;
            pending = timer.schedule(this::fire, delay.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void fire() {
            if (cancelled.get()) return;
            start(true);
        }

        /** The run {@link #fire} would start, now; re-armed only if it took the pending run's place. */
        void runNow() throws InterruptedException {
            var future = pending;
            boolean replacesPending = future == null || future.cancel(false);
            start(replacesPending && period != null).join();
        }

        private Thread start(boolean rearm) {
            return Thread.ofVirtual().name("task-" + name).start(() -> {
                try {
                    opened.await();
                    oneAtATime.lockInterruptibly();
                    try {
                        if (cancelled.get()) return;
                        running = Thread.currentThread();
                        body.run();
                    } finally {
                        running = null;
                        oneAtATime.unlock();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    LOG.warn("Scheduled task {} failed", name, e);
                } finally {
                    if (rearm && period != null) arm(period);
                }
            });
        }

        @Override
        public void cancel() {
            if (!cancelled.compareAndSet(false, true)) return;
            var future = pending;
            if (future != null) future.cancel(false);
            var thread = running;
            if (thread != null) thread.interrupt();
        }

        @Override
        public String name() {
            return name;
        }
    }
}
