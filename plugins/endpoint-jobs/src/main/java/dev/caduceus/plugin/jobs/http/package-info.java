/**
 * {@code /api/jobs} over HTTP: {@link dev.caduceus.plugin.jobs.http.JobsFamily} is the
 * route table, {@code JobValidation} the create/PATCH rules, {@code JobView} the job object,
 * {@code RunHistory} a job's runs, {@code JobPreview} a schedule's next fire times, {@code FlatErrors}
 * the flat {@code {"error": …}} bodies. Threading: one virtual thread per request; handlers share only
 * the store and commands.
 */
package dev.caduceus.plugin.jobs.http;
