/**
 * {@code /v1/responses}: validates the OpenAI Responses request, resolves its chain
 * from the store (a turn appends only its own messages to a chain shared along the conversation and
 * reads its history with one range query, so turn N writes what turn 1 does), runs one
 * agent turn and answers with a response object or an event stream; GET, DELETE and event replay.
 * Start at {@link dev.caduceus.plugin.responses.ResponsesPlugin}, then {@code CreateHandler}.
 * Threading: one virtual thread per request; the store (SQLite, or a PostgreSQL that several nodes
 * share), the idempotency cache and the set of live streams are the only shared state; the last two are
 * this process's own.
 */
package dev.caduceus.plugin.responses;
