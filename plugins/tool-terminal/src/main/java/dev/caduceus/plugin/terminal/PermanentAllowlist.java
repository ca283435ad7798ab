package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.store.PluginDatabase;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The patterns allowed with {@code always}: kept in the plugin's table {@code approval_allowlist}
 * so they survive a restart and reach every node sharing the database. A pattern is never taken off
 * the list, so the ones seen are remembered in memory (no database read for them again); a pattern
 * not seen yet is looked up in the table, where another node (or process) may have added it since.
 * Thread-safe.
 */
final class PermanentAllowlist {
    private final PluginDatabase database;
    private final Clock clock;
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    private PermanentAllowlist(PluginDatabase database, Clock clock) {
        this.database = database;
        this.clock = clock;
    }

    /** Loads the stored patterns. */
    static PermanentAllowlist load(PluginDatabase database, Clock clock) {
        var list = new PermanentAllowlist(database, clock);
        list.seen.addAll(database.read(sql -> sql.query("SELECT pattern_key FROM approval_allowlist", r -> r.getString(1))));
        return list;
    }

    boolean contains(String patternKey) {
        if (seen.contains(patternKey)) return true;
        boolean stored = database.read(sql -> sql.queryOne("SELECT pattern_key FROM approval_allowlist WHERE pattern_key = ?",
                r -> r.getString(1), patternKey)).isPresent();
        if (stored) seen.add(patternKey);
        return stored;
    }

    /** Stores a pattern (idempotent, also when another node stored it first). */
    void add(String patternKey) {
        if (seen.contains(patternKey)) return;
        database.write(sql -> sql.update("INSERT INTO approval_allowlist (pattern_key, added_at) VALUES (?, ?) "
                + "ON CONFLICT (pattern_key) DO NOTHING", patternKey, clock.instant().toString()));
        seen.add(patternKey);
    }
}
