/**
 * {@code /v1/runs}: validates run submissions into a {@code RunRequest} and hands them
 * to the host's durable run service ({@code Runs.submit}, journaled, with the durable
 * {@code Idempotency-Key}), then translates what the host keeps — status records, the event journal,
 * approval, steer and stop outcomes — into the contract's JSON and server-sent events. It keeps no
 * state of its own. Start at {@link dev.caduceus.plugin.runs.RunsPlugin}, then {@code RunsFamily}
 * (the route table) and {@code SubmitHandler}. Threading: one virtual thread per request; handlers
 * are stateless and share only the plugin context.
 */
package dev.caduceus.plugin.runs;
