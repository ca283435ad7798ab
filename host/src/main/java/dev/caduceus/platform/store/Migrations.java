package dev.caduceus.platform.store;

import static java.util.Objects.requireNonNull;

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
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Forward-only schema migrations, one namespace per owner (a plugin id, or {@value #PLATFORM} for
 * the host). Each pending script runs in one write transaction and is recorded in
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

    /** Lists {@code db/migration/<ownerId>/sqlite/V*.sql} from the jar file itself, by version. */
    public static List<Script> fromJar(Path jar, String ownerId) {
        requireNonNull(jar, "jar");
        String folder = "db/migration/" + requireNonNull(ownerId, "ownerId") + "/sqlite/";
        List<Script> scripts = new ArrayList<>();
        try (var zip = new ZipFile(jar.toFile(), StandardCharsets.UTF_8)) {
            for (ZipEntry entry : zip.stream().toList()) {
                String name = entry.getName();
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
        db.write(sql -> {
            sql.update(HISTORY_DDL);
            sql.update(OBJECTS_DDL);
            sql.update("INSERT OR IGNORE INTO schema_objects (name, owner) VALUES ('schema_history', ?), ('schema_objects', ?)",
                    PLATFORM, PLATFORM);
            return null;
        });
        Map<Integer, String> applied = new HashMap<>();
        db.read(sql -> sql.query("SELECT version, checksum FROM schema_history WHERE owner = ?",
                row -> applied.put(row.getInt(1), row.getString(2)), owner));
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
        List<Script> done = new ArrayList<>();
        for (Script s : pending) {
            if (applyOne(db, owner, s, clock)) done.add(s);
        }
        return List.copyOf(done);
    }

    private static boolean applyOne(Database db, String owner, Script script, Clock clock) {
        try {
            return db.writeWithHandle(h -> {
                var existing = h.createQuery("SELECT checksum FROM schema_history WHERE owner = ? AND version = ?")
                        .bind(0, owner).bind(1, script.version()).mapTo(String.class).findFirst();
                if (existing.isPresent()) { // applied meanwhile by someone else
                    if (!existing.get().equals(script.checksum())) throw changed(owner, script);
                    return false;
                }
                SchemaSnapshot before = SchemaSnapshot.of(h);
                try (Statement st = h.getConnection().createStatement()) {
                    st.executeUpdate(script.sql()); // sqlite-jdbc runs every statement of the text
                }
                SchemaSnapshot after = SchemaSnapshot.of(h);
                before.checkAndRecord(after, h, owner, "Migration V" + script.version() + " of " + owner
                        + " (" + script.origin() + ")");
                h.createUpdate("INSERT INTO schema_history (owner, version, description, checksum, applied_at) "
                                + "VALUES (?, ?, ?, ?, ?)")
                        .bind(0, owner).bind(1, script.version()).bind(2, script.description())
                        .bind(3, script.checksum()).bind(4, clock.instant().toString()).execute();
                return true;
            });
        } catch (StoreException e) {
            if (e.getCause() instanceof MigrationException me) throw me;
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new MigrationException("Migration V" + script.version() + " of " + owner + " (" + script.origin()
                    + ") failed and was rolled back: " + cause.getMessage(), cause);
        }
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
