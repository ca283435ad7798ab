/**
 * The agent runtime: {@link dev.caduceus.platform.runtime.agent.LocalAgentRuntime} is the agent loop (model
 * calls with retries, tool dispatch, iteration cap), {@link dev.caduceus.platform.runtime.agent.RunService}
 * admits runs, runs them on virtual threads and serves their events, and
 * {@link dev.caduceus.platform.runtime.agent.SessionStore} keeps session transcripts in SQLite.
 * Threading: one virtual thread per run emits that run's events; everything else is thread-safe.
 */
package dev.caduceus.platform.runtime.agent;
