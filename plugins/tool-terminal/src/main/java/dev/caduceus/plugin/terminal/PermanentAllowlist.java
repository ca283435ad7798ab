package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.store.PluginDatabase;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The patterns allowed with {@code always}: kept in the plugin's table {@code approval_allowlist}
 * so they survive a restart, and in memory for the check on every command. Thread-safe.
 */
final class PermanentAllowlist {
    private final PluginDatabase database;
    private final Clock clock;
    private final Set<String> keys = ConcurrentHashMap.newKeySet();

    private PermanentAllowlist(PluginDatabase database, Clock clock) {
        this.database = database;
        this.clock = clock;
    }

    /** Loads the stored patterns. */
    static PermanentAllowlist load(PluginDatabase database, Clock clock) {
        var list = new PermanentAllowlist(database, clock);
        list.keys.addAll(database.read(sql -> sql.query("SELECT pattern_key FROM approval_allowlist", r -> r.getString(1))));
        return list;
    }

    boolean contains(String patternKey) {
        return keys.contains(patternKey);
    }

    /** Stores a pattern (idempotent). */
    void add(String patternKey) {
        if (!keys.add(patternKey)) return;
        database.write(sql -> sql.update("INSERT INTO approval_allowlist (pattern_key, added_at) VALUES (?, ?) "
                + "ON CONFLICT (pattern_key) DO NOTHING", patternKey, clock.instant().toString()));
    }
}
