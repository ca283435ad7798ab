package dev.caduceus.platform.host.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class TaskSchedulerTest {

    @Test
    void tasksWaitForOpenThenFire() throws Exception {
        try (var scheduler = new TaskScheduler()) {
            var fired = new CountDownLatch(1);
            scheduler.forOwner("p", UnaryOperator.identity()).schedule("t", Duration.ZERO, fired::countDown);
            assertFalse(fired.await(200, TimeUnit.MILLISECONDS), "nothing fires before boot ends");
            scheduler.open();
            assertTrue(fired.await(2, TimeUnit.SECONDS));
        }
    }

    @Test
    void periodicTasksRepeatAndStopWhenTheirOwnerIsCancelled() throws Exception {
        try (var scheduler = new TaskScheduler()) {
            scheduler.open();
            var runs = new AtomicInteger();
            var three = new CountDownLatch(3);
            scheduler.forOwner("p", UnaryOperator.identity()).scheduleWithFixedDelay("tick", Duration.ZERO,
                    Duration.ofMillis(10), () -> { runs.incrementAndGet(); three.countDown(); });
            assertTrue(three.await(2, TimeUnit.SECONDS));
            scheduler.cancelAll("p");
            awaitLaterTask(scheduler); // a run in flight at the cancel has ended
            var after = runs.get();
            awaitLaterTask(scheduler); // five periods of the cancelled task later
            assertEquals(after, runs.get(), "no runs after cancel");
        }
    }

    @Test
    void aFailingPeriodicTaskKeepsItsScheduleAndRunsWrapped() throws Exception {
        try (var scheduler = new TaskScheduler()) {
            scheduler.open();
            var wrapped = new AtomicInteger();
            var twice = new CountDownLatch(2);
            UnaryOperator<Runnable> wrap = r -> () -> { wrapped.incrementAndGet(); r.run(); };
            scheduler.forOwner("p", wrap).scheduleWithFixedDelay("boom", Duration.ZERO, Duration.ofMillis(10), () -> {
                twice.countDown();
                throw new IllegalStateException("boom");
            });
            assertTrue(twice.await(2, TimeUnit.SECONDS));
            assertTrue(wrapped.get() >= 2);
        }
    }

    @Test
    void runNowRunsAnHourlyTaskAtOnceAndNeverBesideARunInProgress() throws Exception {
        try (var scheduler = new TaskScheduler()) {
            scheduler.open();
            var runs = new AtomicInteger();
            var inside = new AtomicInteger();
            var overlapped = new java.util.concurrent.atomic.AtomicBoolean();
            var firstStarted = new CountDownLatch(1);
            var releaseFirst = new CountDownLatch(1);
            scheduler.forOwner("p", UnaryOperator.identity()).scheduleWithFixedDelay("hourly", Duration.ofHours(1),
                    Duration.ofHours(1), () -> {
                        if (inside.incrementAndGet() > 1) overlapped.set(true);
                        try {
                            if (runs.incrementAndGet() == 1) {
                                firstStarted.countDown();
                                releaseFirst.await();
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            inside.decrementAndGet();
                        }
                    });

            var first = Thread.ofVirtual().start(() -> {
                try {
                    scheduler.runNow("p/hourly");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(firstStarted.await(5, TimeUnit.SECONDS), "runNow ran the hourly task without its hour");
            var second = Thread.ofVirtual().start(() -> {
                try {
                    scheduler.runNow("p/hourly");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            releaseFirst.countDown();
            first.join();
            second.join();
            assertEquals(2, runs.get(), "each runNow is one run, and it has ended when runNow returns");
            assertFalse(overlapped.get(), "the second run waited for the first");

            var unknown = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> scheduler.runNow("p/daily"));
            assertEquals("no scheduled task p/daily; scheduled: [p/hourly]", unknown.getMessage());
        }
    }

    /** Waits for a one-shot task 50 ms out, on the same timer as the tasks under test. */
    private static void awaitLaterTask(TaskScheduler scheduler) throws InterruptedException {
        var fired = new CountDownLatch(1);
        scheduler.forOwner("marker", UnaryOperator.identity()).schedule("later", Duration.ofMillis(50), fired::countDown);
        assertTrue(fired.await(5, TimeUnit.SECONDS));
    }
}
