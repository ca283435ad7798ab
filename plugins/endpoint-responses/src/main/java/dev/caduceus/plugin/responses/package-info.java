/**
 * {@code /v1/responses} (http-api §8): validates the OpenAI Responses request, resolves its chain
 * from the store (one row holds the whole transcript, so turn N costs what turn 1 does), runs one
 * agent turn and answers with a response object or an event stream; GET, DELETE and event replay.
 * Start at {@link dev.caduceus.plugin.responses.ResponsesPlugin}, then {@code CreateHandler}.
 * Threading: one virtual thread per request; the store (SQLite), the idempotency cache and the set of
 * live streams are the only shared state.
 */
package dev.caduceus.plugin.responses;
