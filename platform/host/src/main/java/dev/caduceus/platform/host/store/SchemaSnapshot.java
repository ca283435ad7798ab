package dev.caduceus.platform.host.store;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * The schema objects at one moment, compared before and after a migration script to find what it
 * created, changed or dropped: {@code sqlite_master} on SQLite (internal objects left out); on
 * PostgreSQL the tables, indexes, sequences and views of every Caduceus schema ({@code caduceus_*}),
 * named {@code schema.name}, a table described by its columns and an index by its definition.
 */
record SchemaSnapshot(Map<String, Entry> objects) {

    record Entry(String type, String name, String table, String sql) {}

    SchemaSnapshot {
        objects = Map.copyOf(objects);
    }

    private static final String POSTGRES_OBJECTS = """
            SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'i' THEN 'index'
                       WHEN 'S' THEN 'sequence' WHEN 'v' THEN 'view' WHEN 'm' THEN 'view' ELSE c.relkind::text END,
                   n.nspname || '.' || c.relname,
                   COALESCE((SELECT tn.nspname || '.' || t.relname FROM pg_index x
                             JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace tn ON tn.oid = t.relnamespace
                             WHERE x.indexrelid = c.oid), n.nspname || '.' || c.relname),
                   CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid)
                        ELSE (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                  || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
                              FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) END
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname LIKE 'caduceus\\_%' AND c.relkind IN ('r', 'p', 'i', 'S', 'v', 'm')""";

    static SchemaSnapshot of(Handle h, dev.caduceus.spi.store.PluginDatabase.Dialect dialect) {
        Map<String, Entry> objects = new HashMap<>();
        if (dialect == dev.caduceus.spi.store.PluginDatabase.Dialect.POSTGRESQL) {
            h.createQuery(POSTGRES_OBJECTS)
                    .map((row, ctx) -> new Entry(row.getString(1), row.getString(2), row.getString(3), row.getString(4)))
                    .forEach(e -> objects.put(e.name(), e));
            return new SchemaSnapshot(objects);
        }
        h.createQuery("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
                .map((row, ctx) -> new Entry(row.getString(1), row.getString(2), row.getString(3), row.getString(4)))
                .forEach(e -> objects.put(e.name(), e));
        return new SchemaSnapshot(objects);
    }

    /**
     * Refuses (throws {@link MigrationException}) if anything owned by someone other than
     * {@code owner} was changed or dropped, or a new index or trigger sits on such a table; then
     * records the new objects as owned by {@code owner} and forgets the dropped ones.
     */
    void checkAndRecord(SchemaSnapshot after, Handle h, String owner, String what, String objectsTable) {
        Map<String, String> owners = new HashMap<>();
        h.createQuery("SELECT name, owner FROM " + objectsTable)
                .map((row, ctx) -> Map.entry(row.getString(1), row.getString(2)))
                .forEach(e -> owners.put(e.getKey(), e.getValue()));
        for (Entry old : objects.values()) {
            Entry now = after.objects.get(old.name());
            if (Objects.equals(old, now)) continue;
            String verb = now == null ? "drops" : "alters";
            requireOwned(owners, owner, old.name(), what + " " + verb + " " + old.type() + " " + old.name());
            if (now == null) h.createUpdate("DELETE FROM " + objectsTable + " WHERE name = ?").bind(0, old.name()).execute();
        }
        for (Entry added : after.objects.values()) {
            if (objects.containsKey(added.name())) continue;
            if (!added.table().equals(added.name()) && objects.containsKey(added.table())) {
                requireOwned(owners, owner, added.table(), what + " creates " + added.type() + " " + added.name()
                        + " on table " + added.table());
            }
            h.createUpdate("INSERT INTO " + objectsTable + " (name, owner) VALUES (?, ?) "
                            + "ON CONFLICT (name) DO UPDATE SET owner = excluded.owner")
                    .bind(0, added.name()).bind(1, owner).execute();
        }
    }

    private static void requireOwned(Map<String, String> owners, String owner, String name, String action) {
        String actual = owners.get(name);
        if (owner.equals(actual)) return;
        throw new MigrationException(action + ", which is owned by "
                + (actual == null ? "no migration owner" : actual) + "; refused and rolled back");
    }
}
