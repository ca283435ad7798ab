package dev.caduceus.plugin.jobs;

import dev.caduceus.plugin.jobs.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Jobs made directly, as the store keeps them, for the store's own tests. */
final class StoredJobs {
    private StoredJobs() {}

    /** An enabled one-shot of {@code owner} due at {@code runAt}, created a minute before. */
    static Job once(String id, String owner, Instant runAt) {
        var created = runAt.minus(Duration.ofMinutes(1));
        return new Job(id, owner, "job " + id, "say " + id, "in 1m", null, new Schedule.Once(runAt, "once in 1m"),
                List.of(), null, "origin", 1, 0, true, Job.SCHEDULED, null, null, created, runAt, JobScheduler.SCHEDULE,
                null, null, null, null, null, created, null);
    }

    /** An enabled job every {@code minutes} minutes, next due at {@code next} (null: none), any number of times. */
    static Job every(String id, String owner, long minutes, Instant next, Instant created) {
        return new Job(id, owner, "job " + id, "say " + id, "every " + minutes + "m", "Europe/Paris",
                new Schedule.Interval(minutes), List.of("a", "b"), "a", "origin", null, 0, true,
                next == null ? Job.ERROR : Job.SCHEDULED, null, null, created, next, JobScheduler.SCHEDULE, null, null,
                null, null, null, created, null);
    }
}
