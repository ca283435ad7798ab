/**
 * Where run events are committed and read back. {@link
 * dev.caduceus.platform.runtime.journal.RunJournal} keeps durable runs in SQLite (tables {@code runs},
 * {@code run_events}, {@code run_idempotency_keys}): a {@link dev.caduceus.platform.runtime.journal.JournalWriter}
 * commits appends from all runs in one transaction per batch (group commit) and only then publishes
 * them to the {@link dev.caduceus.platform.runtime.journal.LiveTail}, so a subscriber never sees an event
 * that a crash could take back. {@link dev.caduceus.platform.runtime.journal.InMemoryEventLog} serves the
 * ephemeral runs of chat and Responses. Threading: everything here is thread-safe.
 */
package dev.caduceus.platform.runtime.journal;
