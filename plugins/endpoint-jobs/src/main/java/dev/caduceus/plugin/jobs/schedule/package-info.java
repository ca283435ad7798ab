/**
 * Job schedules: {@link dev.caduceus.plugin.jobs.schedule.ScheduleParser} turns the
 * request's text and {@code tz} into a {@link dev.caduceus.plugin.jobs.schedule.Schedule} (interval,
 * zoned cron via the shaded cron-utils, one-shot), which answers the next fire time;
 * {@link dev.caduceus.plugin.jobs.schedule.CatchUp} is the misfire rule. Pure values and functions of
 * an explicit {@code now}: no clock, no threads, no I/O.
 */
package dev.caduceus.plugin.jobs.schedule;
