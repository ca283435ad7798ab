package dev.caduceus.plugin.memory;

import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import dev.caduceus.support.sql.Batcher;
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
    /** Scopes read in one PostgreSQL statement at most. */
    static final int MAX_BATCH = 64;
    private final PluginDatabase db;
    private final Clock clock;
    private final Map<Key, List<String>> cache = new ConcurrentHashMap<>();
    private final AtomicLong edits = new AtomicLong();
    private final boolean cached;
    private final Batcher<Read> reads; // PostgreSQL's; null on SQLite

    private record Key(String scope, MemoryTarget target) {}

    MemoryStore(PluginDatabase db, Clock clock) {
        this.db = db;
        this.clock = clock;
        this.cached = db.dialect() == PluginDatabase.Dialect.SQLITE;
        this.reads = cached ? null : new Batcher<>("caduceus-memory-reads", MAX_BATCH, this::readBatch);
    }

    /** The entries of {@code target} in {@code scope}, in order. */
    List<String> entries(String scope, MemoryTarget target) {
        return both(scope).get(target);
    }

    /**
     * Both stores of {@code scope}, as every turn's system prompt shows them, in one statement. On PostgreSQL, where
     * every read goes to the database, the reads that arrive while one runs are made together, in one statement for
     * all their scopes: one round trip for many turns, where a read per store took four a turn (issue 41). A read
     * that arrives while another runs waits for the next, so it sees every edit committed before it was asked for.
     */
    Map<MemoryTarget, List<String>> both(String scope) {
        if (cached) {
            var memory = cache.get(new Key(scope, MemoryTarget.MEMORY));
            var user = cache.get(new Key(scope, MemoryTarget.USER));
            if (memory != null && user != null) return Map.of(MemoryTarget.MEMORY, memory, MemoryTarget.USER, user);
        }
        long before = edits.get();
        Map<MemoryTarget, List<String>> loaded;
        if (reads != null) {
            var read = new Read(scope);
            reads.submit(read);
            loaded = read.stores;
        } else {
            loaded = stores(db.query("SELECT scope, store, text FROM memory_entries WHERE scope = ? ORDER BY store, position",
                    MemoryStore::entry, scope));
        }
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

    /** One scope's read in a batch; {@code stores} is set by the batch. */
    private static final class Read {
        final String scope;
        Map<MemoryTarget, List<String>> stores;

        Read(String scope) {
            this.scope = scope;
        }
    }

    private record Entry(String scope, String store, String text) {}

    private static Entry entry(java.sql.ResultSet r) throws java.sql.SQLException {
        return new Entry(r.getString(1), r.getString(2), r.getString(3));
    }

    private void readBatch(List<Read> batch) {
        var scopes = batch.stream().map(r -> r.scope).distinct().toList();
        var rows = db.query("SELECT scope, store, text FROM memory_entries WHERE scope IN ("
                        + "?, ".repeat(scopes.size() - 1) + "?) ORDER BY scope, store, position",
                MemoryStore::entry, scopes.toArray());
        var byScope = new java.util.HashMap<String, List<Entry>>();
        for (var row : rows) byScope.computeIfAbsent(row.scope(), k -> new ArrayList<>()).add(row);
        for (var read : batch) read.stores = stores(byScope.getOrDefault(read.scope, List.of()));
    }

    /** The entries of one scope, in order, by store. */
    private static Map<MemoryTarget, List<String>> stores(List<Entry> rows) {
        var loaded = new java.util.EnumMap<MemoryTarget, List<String>>(MemoryTarget.class);
        for (var target : MemoryTarget.values())
            loaded.put(target, rows.stream().filter(r -> r.store().equals(target.wireName())).map(Entry::text).toList());
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
