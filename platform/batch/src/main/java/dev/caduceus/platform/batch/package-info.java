/**
 * {@code caduceus batch} (see docs/batch.md): runs the agent over a JSONL dataset of prompts with toolsets
 * sampled from a distribution and writes Hermes-compatible ShareGPT trajectories, a per-prompt
 * checkpoint, the merged {@code trajectories.jsonl} and {@code statistics.json}. Start at
 * {@link dev.caduceus.platform.batch.BatchCommand} (flags), then {@link dev.caduceus.platform.batch.BatchRunner}.
 * Threading: one virtual thread per batch; prompt outcomes are recorded under the runner's lock.
 */
package dev.caduceus.platform.batch;
