/**
 * The host's SQLite database: one writer thread, a pool of readers, and per-owner forward-only
 * migrations that keep each plugin inside its own tables. Start at {@link
 * dev.caduceus.platform.host.store.Database}, then {@link dev.caduceus.platform.host.store.Migrations}.
 * Threading: writes are serialized on the writer thread; reads run on the caller with a pooled handle.
 */
package dev.caduceus.platform.host.store;
