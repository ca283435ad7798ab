/**
 * A plugin's own tables in the host database. Start at {@link PluginDatabase}. Threading: reads run
 * on a small pool of reader connections, writes on the host's single writer; both block the caller.
 */
package dev.caduceus.spi.store;
