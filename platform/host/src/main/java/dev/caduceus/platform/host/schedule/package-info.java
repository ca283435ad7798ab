/**
 * Delayed and periodic tasks for plugins, on virtual threads, firing only after boot. Start at
 * {@link dev.caduceus.platform.host.schedule.TaskScheduler}. Threading: thread-safe; tasks of one plugin
 * are cancelled together before that plugin stops.
 */
package dev.caduceus.platform.host.schedule;
