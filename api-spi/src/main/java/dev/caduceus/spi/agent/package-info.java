/**
 * Agent runs: an {@link AgentRuntime} executes a {@link RunRequest} and emits {@link RunEvent}s; the
 * host's {@link Runs} service admits, journals and serves them to subscribers. Endpoint plugins only
 * build requests and translate events. Threading: each run executes on its own virtual thread;
 * subscriptions are read by one thread each.
 */
package dev.caduceus.spi.agent;
