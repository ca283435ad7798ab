package dev.caduceus.platform.store;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * The schema objects in {@code sqlite_master} at one moment, compared before and after a migration
 * script to find what it created, changed or dropped. SQLite's internal objects are left out.
 */
record SchemaSnapshot(Map<String, Entry> objects) {

    record Entry(String type, String name, String table, String sql) {}

    SchemaSnapshot {
        objects = Map.copyOf(objects);
    }

    static SchemaSnapshot of(Handle h) {
        Map<String, Entry> objects = new HashMap<>();
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
    void checkAndRecord(SchemaSnapshot after, Handle h, String owner, String what) {
        Map<String, String> owners = new HashMap<>();
        h.createQuery("SELECT name, owner FROM schema_objects")
                .map((row, ctx) -> Map.entry(row.getString(1), row.getString(2)))
                .forEach(e -> owners.put(e.getKey(), e.getValue()));
        for (Entry old : objects.values()) {
            Entry now = after.objects.get(old.name());
            if (Objects.equals(old, now)) continue;
            String verb = now == null ? "drops" : "alters";
            requireOwned(owners, owner, old.name(), what + " " + verb + " " + old.type() + " " + old.name());
            if (now == null) h.createUpdate("DELETE FROM schema_objects WHERE name = ?").bind(0, old.name()).execute();
        }
        for (Entry added : after.objects.values()) {
            if (objects.containsKey(added.name())) continue;
            if (!added.table().equals(added.name()) && objects.containsKey(added.table())) {
                requireOwned(owners, owner, added.table(), what + " creates " + added.type() + " " + added.name()
                        + " on table " + added.table());
            }
            h.createUpdate("INSERT OR REPLACE INTO schema_objects (name, owner) VALUES (?, ?)")
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
