/**
 * The {@code memory} tool: two bounded stores of entries (agent notes and user profile) per memory
 * scope, persisted in SQLite, with a frozen snapshot for the system prompt. Start at
 * {@link dev.caduceus.plugin.memory.MemoryPlugin}. Threading: the tool is stateless; every write runs
 * in one transaction on the host's single writer, so writes to a scope are serialized.
 */
package dev.caduceus.plugin.memory;
