package dev.caduceus.platform.runtime.agent;

/**
 * What one tool call produced for the model: the (capped, redacted) tool message content and
 * whether it counts as an error. Immutable.
 */
record ToolOutcome(String content, boolean error, long durationMillis) {}
