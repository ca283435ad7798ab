package dev.caduceus.plugin.memory;

import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The {@code memory_entries} table: the ordered entries of one store of one scope. An edit reads and
 * rewrites the store's rows inside one write transaction, so writes to a scope are serialized and a
 * failed or refused edit stores nothing. An entry whose text survives an edit keeps its
 * {@code created_at}/{@code updated_at}; new text gets the clock's now. Thread-safe.
 *
 * <p>On SQLite reads are cached per scope and store: every agent turn puts the memory in its system
 * prompt, and one process (this plugin) is the only writer of the file's table, so a store is read
 * once and again only after an edit. A read that raced with an edit is not cached (the edit count
 * moved meanwhile). Scopes can be per session, so the cache holds at most {@value #MAX_CACHED} stores
 * and starts over when full. On PostgreSQL several nodes write the same table, and an edit on one
 * could not drop another node's cached copy: every read goes to the database.
 */
final class MemoryStore {
    static final int MAX_CACHED = 4096;
    private final PluginDatabase db;
    private final Clock clock;
    private final Map<Key, List<String>> cache = new ConcurrentHashMap<>();
    private final AtomicLong edits = new AtomicLong();
    private final boolean cached;

    private record Key(String scope, MemoryTarget target) {}

    MemoryStore(PluginDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
        this.cached = db.dialect() == PluginDatabase.Dialect.SQLITE;
    }

    /** The entries of {@code target} in {@code scope}, in order. */
    List<String> entries(String scope, MemoryTarget target) {
        return both(scope).get(target);
    }

    /**
     * Both stores of {@code scope}, as every turn's system prompt shows them, in one statement: on PostgreSQL, where
     * every read goes to the database, one round trip a turn, where a read per store took four (issue 41).
     */
    Map<MemoryTarget, List<String>> both(String scope) {
        if (cached) {
            var memory = cache.get(new Key(scope, MemoryTarget.MEMORY));
            var user = cache.get(new Key(scope, MemoryTarget.USER));
            if (memory != null && user != null) return Map.of(MemoryTarget.MEMORY, memory, MemoryTarget.USER, user);
        }
        long before = edits.get();
        var rows = db.query("SELECT store, text FROM memory_entries WHERE scope = ? ORDER BY store, position",
                r -> Map.entry(r.getString(1), r.getString(2)), scope);
        var loaded = new java.util.EnumMap<MemoryTarget, List<String>>(MemoryTarget.class);
        for (var target : MemoryTarget.values())
            loaded.put(target, rows.stream().filter(r -> r.getKey().equals(target.wireName())).map(Map.Entry::getValue).toList());
        if (cached) {
            synchronized (cache) {
                if (edits.get() == before) {
                    if (cache.size() + loaded.size() > MAX_CACHED) cache.clear();
                    loaded.forEach((t, texts) -> cache.put(new Key(scope, t), texts));
                }
            }
        }
        return loaded;
    }

    /** Runs {@code edit} on the current entries and stores its result when it changed them, atomically. */
    Outcome edit(String scope, MemoryTarget target, Function<List<String>, Outcome> edit) {
        try {
            return db.write(sql -> {
                var rows = load(sql, scope, target);
                var outcome = edit.apply(texts(rows));
                if (outcome.changed()) save(sql, scope, target, rows, outcome.entries());
                return outcome;
            });
        } finally {
            synchronized (cache) { // after the commit (or a failure): later reads go to the database
                edits.incrementAndGet();
                cache.remove(new Key(scope, target));
            }
        }
    }

    private record Row(String text, String createdAt, String updatedAt) {}

    private static List<Row> load(Sql sql, String scope, MemoryTarget target) {
        return sql.query("SELECT text, created_at, updated_at FROM memory_entries"
                        + " WHERE scope = ? AND store = ? ORDER BY position",
                r -> new Row(r.getString(1), r.getString(2), r.getString(3)), scope, target.wireName());
    }

    private void save(Sql sql, String scope, MemoryTarget target, List<Row> before, List<String> after) {
        var now = clock.instant().toString();
        var unused = new ArrayList<>(before);
        sql.update("DELETE FROM memory_entries WHERE scope = ? AND store = ?", scope, target.wireName());
        for (int i = 0; i < after.size(); i++) {
            var text = after.get(i);
            var kept = unused.stream().filter(r -> r.text().equals(text)).findFirst();
            kept.ifPresent(unused::remove);
            sql.update("INSERT INTO memory_entries (scope, store, position, text, created_at, updated_at)"
                            + " VALUES (?, ?, ?, ?, ?, ?)", scope, target.wireName(), i, text,
                    kept.map(Row::createdAt).orElse(now), kept.map(Row::updatedAt).orElse(now));
        }
    }

    private static List<String> texts(List<Row> rows) {
        return rows.stream().map(Row::text).toList();
    }
}
