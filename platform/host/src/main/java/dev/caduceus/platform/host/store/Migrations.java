package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.store.PluginDatabase.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.jdbi.v3.core.Handle;

/**
 * Forward-only schema migrations, one namespace per owner (a plugin id, or {@value #PLATFORM} for
 * the host). An owner's pending scripts run in one write transaction (when one fails, again one
 * transaction each, so the ones before it stay applied) and each is recorded in
 * {@code schema_history} with its SHA-256; every schema object a script creates is recorded in
 * {@code schema_objects} as owned by that owner, and a script that creates on, alters or drops
 * another owner's object is rolled back and refused. Start at {@link #apply}.
 *
 * <p>Threading: call during boot; the writes themselves are serialized by {@link Database}.
 */
public final class Migrations {
    /** The owner of the platform's own tables, including the two below. */
    public static final String PLATFORM = "platform";
    private static final String HISTORY_DDL = """
            CREATE TABLE IF NOT EXISTS schema_history (
                owner TEXT NOT NULL, version INTEGER NOT NULL, description TEXT NOT NULL,
                checksum TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (owner, version))""";
    private static final String OBJECTS_DDL = """
            CREATE TABLE IF NOT EXISTS schema_objects (name TEXT PRIMARY KEY, owner TEXT NOT NULL)""";

    private Migrations() {}

    /** The folder name of {@code dialect}'s scripts: {@code sqlite} or {@code postgresql}. */
    public static String folder(Dialect dialect) {
        return dialect.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Lists {@code db/migration/<ownerId>/sqlite/V*.sql} from the jar file itself, by version. */
    public static List<Script> fromJar(Path jar, String ownerId) {
        return fromJar(jar, ownerId, Dialect.SQLITE);
    }

    /**
     * Lists {@code db/migration/<ownerId>/<dialect>/V*.sql} from the jar file itself, by version.
     *
     * @throws MigrationException when the jar has scripts for another dialect but none for this one (the
     *         plugin keeps tables, but cannot make them on this engine)
     */
    public static List<Script> fromJar(Path jar, String ownerId, Dialect dialect) {
        requireNonNull(jar, "jar");
        String base = "db/migration/" + requireNonNull(ownerId, "ownerId") + "/";
        String folder = base + folder(dialect) + "/";
        boolean otherDialect = false;
        List<Script> scripts = new ArrayList<>();
        try (var zip = new ZipFile(jar.toFile(), StandardCharsets.UTF_8)) {
            for (ZipEntry entry : zip.stream().toList()) {
                String name = entry.getName();
                if (!entry.isDirectory() && name.startsWith(base) && !name.startsWith(folder) && name.endsWith(".sql"))
                    otherDialect = true;
                if (entry.isDirectory() || !name.startsWith(folder)) continue;
                String fileName = name.substring(folder.length());
                String origin = jar + "!" + name;
                if (fileName.contains("/"))
                    throw new MigrationException("Unexpected sub-folder in " + origin + ": migration scripts sit directly in " + folder);
                String sql;
                try (var in = zip.getInputStream(entry)) {
                    sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                scripts.add(Script.fromFileName(fileName, sql, origin).orElseThrow(() -> new MigrationException(
                        "Bad migration file name " + origin + ": expected V<number>__<description>.sql")));
            }
        } catch (IOException e) {
            throw new MigrationException("Cannot read migrations from " + jar + ": " + e.getMessage(), e);
        }
        if (scripts.isEmpty() && otherDialect)
            throw new MigrationException("Plugin " + ownerId + " (" + jar + ") keeps tables but has no " + folder(dialect)
                    + " migrations (" + folder + "): it cannot run on this database; disable it (plugins.disabled) "
                    + "or use a version made for " + folder(dialect));
        return sorted(scripts, ownerId);
    }

    /** Applies the pending scripts of {@code owner}; returns the ones applied now. */
    public static List<Script> apply(Database db, String owner, List<Script> scripts) {
        return apply(db, owner, scripts, Clock.systemUTC());
    }

    /** {@link #apply(Database, String, List)} with the clock that stamps {@code applied_at}. */
    public static List<Script> apply(Database db, String owner, List<Script> scripts, Clock clock) {
        requireNonNull(db, "db");
        if (owner == null || owner.isBlank()) throw new IllegalArgumentException("owner must not be blank");
        List<Script> ordered = sorted(scripts, owner);
        Map<Integer, String> applied = db.writeWithHandle(PLATFORM, h -> {
            h.execute(HISTORY_DDL);
            h.execute(OBJECTS_DDL);
            h.execute("INSERT INTO schema_objects (name, owner) VALUES (?, ?), (?, ?) ON CONFLICT (name) DO NOTHING",
                    bookkeeping(db, "schema_history"), PLATFORM, bookkeeping(db, "schema_objects"), PLATFORM);
            Map<Integer, String> versions = new HashMap<>();
            h.createQuery("SELECT version, checksum FROM " + bookkeeping(db, "schema_history") + " WHERE owner = ?")
                    .bind(0, owner).map((row, ctx) -> versions.put(row.getInt(1), row.getString(2))).list();
            return versions;
        });
        int known = ordered.isEmpty() ? 0 : ordered.getLast().version();
        int newestApplied = applied.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        if (newestApplied > known)
            throw new MigrationException("The database " + db.describe() + " is at migration V" + newestApplied + " of "
                    + owner + ", newer than this version of Caduceus knows (V" + known + "): it was migrated by a newer "
                    + "release. Run that release, or restore a backup taken before it.");
        int newest = applied.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        List<Script> pending = new ArrayList<>();
        for (Script s : ordered) {
            String checksum = applied.get(s.version());
            if (checksum != null) {
                if (!checksum.equals(s.checksum())) throw changed(owner, s);
            } else if (s.version() < newest) {
                throw new MigrationException("Migration V" + s.version() + " of " + owner + " (" + s.origin()
                        + ") is older than the applied V" + newest + "; migrations are forward only: add V" + (newest + 1));
            } else {
                pending.add(s);
            }
        }
        if (pending.size() > 1) {
            try {
                return applyTogether(db, owner, pending, clock);
            } catch (RuntimeException e) {
                // one of them failed, and the transaction took the ones before it along: one at a time, as before,
                // those stay applied and the failing one reports its own error
            }
        }
        return applyEach(db, owner, pending, clock);
    }

    /**
     * Applies {@code pending} in one transaction, each script checked against the schema the one before it left: a
     * fresh home's thirty scripts in a commit or two an owner, where a transaction each cost the boot ~120 ms of the
     * database writer's time (bench/README.md, issue 48).
     */
    private static List<Script> applyTogether(Database db, String owner, List<Script> pending, Clock clock) {
        return db.writeWithHandle(owner, h -> {
            List<Script> done = new ArrayList<>();
            SchemaSnapshot schema = SchemaSnapshot.of(h, db.dialect());
            for (Script s : pending) {
                var after = applyIn(h, db, owner, s, clock, schema);
                if (after.isPresent()) {
                    schema = after.get();
                    done.add(s);
                }
            }
            return List.copyOf(done);
        });
    }

    /** Applies {@code pending} one transaction each, up to the first that fails, which throws. */
    private static List<Script> applyEach(Database db, String owner, List<Script> pending, Clock clock) {
        List<Script> done = new ArrayList<>();
        for (Script script : pending) {
            try {
                if (db.writeWithHandle(owner, h -> applyIn(h, db, owner, script, clock, SchemaSnapshot.of(h, db.dialect()))
                        .isPresent())) done.add(script);
            } catch (StoreException e) {
                if (e.getCause() instanceof MigrationException me) throw me;
                Throwable cause = e.getCause() == null ? e : e.getCause();
                throw new MigrationException("Migration V" + script.version() + " of " + owner + " (" + script.origin()
                        + ") failed and was rolled back: " + cause.getMessage(), cause);
            }
        }
        return List.copyOf(done);
    }

    /**
     * Runs {@code script} on {@code h} unless it was applied meanwhile by someone else, checks what it did to the
     * schema ({@code before}: the schema before it) and records it; the schema after it, or empty when it was
     * already applied.
     */
    private static Optional<SchemaSnapshot> applyIn(Handle h, Database db, String owner, Script script, Clock clock,
                                                    SchemaSnapshot before) throws Exception {
        var existing = h.createQuery("SELECT checksum FROM " + bookkeeping(db, "schema_history")
                        + " WHERE owner = ? AND version = ?")
                .bind(0, owner).bind(1, script.version()).mapTo(String.class).findFirst();
        if (existing.isPresent()) { // applied meanwhile by someone else
            if (!existing.get().equals(script.checksum())) throw changed(owner, script);
            return Optional.empty();
        }
        try (Statement st = h.getConnection().createStatement()) {
            st.executeUpdate(script.sql()); // both drivers run every statement of the text
        }
        SchemaSnapshot after = SchemaSnapshot.of(h, db.dialect());
        before.checkAndRecord(after, h, owner, "Migration V" + script.version() + " of " + owner
                + " (" + script.origin() + ")", bookkeeping(db, "schema_objects"));
        h.createUpdate("INSERT INTO " + bookkeeping(db, "schema_history")
                        + " (owner, version, description, checksum, applied_at) VALUES (?, ?, ?, ?, ?)")
                .bind(0, owner).bind(1, script.version()).bind(2, script.description())
                .bind(3, script.checksum()).bind(4, clock.instant().toString()).execute();
        return Optional.of(after);
    }

    /**
     * The bookkeeping table {@code table} as SQL names it from any owner's work: on PostgreSQL it lives in
     * the platform's schema, and a plugin's migration runs with its own schema as the search path.
     */
    static String bookkeeping(Database db, String table) {
        return db.dialect() == Dialect.POSTGRESQL ? Database.schemaOf(PLATFORM) + "." + table : table;
    }

    /**
     * The versions applied per owner, for {@code caduceus db check}: owner → newest version; empty for a
     * database no migration ever ran on (it has no {@code schema_history} yet).
     */
    public static Map<String, Integer> appliedVersions(Database db) {
        Map<String, Integer> versions = new java.util.TreeMap<>();
        boolean exists = db.read(sql -> db.dialect() == Dialect.POSTGRESQL
                ? sql.queryOne("SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                        r -> 1, Database.schemaOf(PLATFORM), "schema_history").isPresent()
                : sql.queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", r -> 1, "schema_history")
                        .isPresent());
        if (!exists) return versions;
        db.read(sql -> sql.query("SELECT owner, MAX(version) FROM " + bookkeeping(db, "schema_history") + " GROUP BY owner",
                row -> versions.put(row.getString(1), row.getInt(2))));
        return versions;
    }

    private static MigrationException changed(String owner, Script s) {
        return new MigrationException("Migration V" + s.version() + " of " + owner + " (" + s.origin()
                + ") was changed after it was applied (checksum differs); add a new version instead");
    }

    private static List<Script> sorted(List<Script> scripts, String owner) {
        List<Script> ordered = new ArrayList<>(scripts);
        ordered.sort(Comparator.comparingInt(Script::version));
        for (int i = 1; i < ordered.size(); i++) {
            if (ordered.get(i).version() == ordered.get(i - 1).version())
                throw new MigrationException("Two migrations of " + owner + " have version " + ordered.get(i).version()
                        + ": " + ordered.get(i - 1).origin() + " and " + ordered.get(i).origin());
        }
        return List.copyOf(ordered);
    }
}
