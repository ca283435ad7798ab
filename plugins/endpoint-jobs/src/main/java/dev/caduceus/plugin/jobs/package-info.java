/**
 * Scheduled agent prompts: jobs stored in the plugin's own SQLite tables
 * ({@link dev.caduceus.plugin.jobs.JobStore}), changed by HTTP through
 * {@link dev.caduceus.plugin.jobs.JobCommands} and fired by
 * {@link dev.caduceus.plugin.jobs.JobScheduler}, whose claim is one compare-and-set update so a firing
 * runs once however many loops share the database. Start at {@link dev.caduceus.plugin.jobs.JobsPlugin}.
 * Threading: one periodic tick (1 s), run watchers on virtual threads, HTTP on request threads.
 */
package dev.caduceus.plugin.jobs;
