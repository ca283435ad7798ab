package dev.caduceus.plugin.files;

import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The file rows: one per file object, owner-scoped. An insert checks the owner's quota in the same transaction,
 * so that two uploads at once cannot both pass it. Thread-safe.
 */
public final class FileStore {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String COLUMNS = "id, owner, filename, purpose, bytes, sha256, content_type, created_at, expires_at, run_id";

    private final PluginDatabase database;

    public FileStore(PluginDatabase database) {
        this.database = database;
    }

    /** A new file id: {@code file-} and 24 hex digits. */
    public static String newId() {
        var bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return "file-" + HexFormat.of().formatHex(bytes);
    }

    /** What happened to an insert. */
    public sealed interface Insert {
        record Stored(StoredFile file) implements Insert {}

        /** The owner's files already hold {@code used} bytes; this one would pass {@code quota}. */
        record OverQuota(long used, long quota) implements Insert {}
    }

    /** Stores {@code file} unless its owner's files (not yet expired) would then hold more than {@code quota}. */
    public Insert insert(StoredFile file, long quota) {
        return database.write(sql -> {
            long used = used(sql, file.owner(), file.createdAt());
            if (used + file.bytes() > quota) return new Insert.OverQuota(used, quota);
            sql.update("INSERT INTO files (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", file.id(), file.owner(),
                    file.filename(), file.purpose(), file.bytes(), file.sha256(), file.contentType(),
                    file.createdAt().getEpochSecond(), file.expiresAt().map(Instant::getEpochSecond).orElse(null),
                    file.runId().orElse(null));
            return new Insert.Stored(file);
        });
    }

    /** The bytes {@code owner}'s live files hold at {@code now}. */
    public long used(String owner, Instant now) {
        return database.read(sql -> used(sql, owner, now));
    }

    private static long used(Sql sql, String owner, Instant now) {
        return sql.queryOne("SELECT COALESCE(SUM(bytes), 0) FROM files WHERE owner = ? AND (expires_at IS NULL OR expires_at > ?)",
                r -> r.getLong(1), owner, now.getEpochSecond()).orElse(0L);
    }

    public Optional<StoredFile> find(String id) {
        return database.read(sql -> sql.queryOne("SELECT " + COLUMNS + " FROM files WHERE id = ?", FileStore::row, id));
    }

    /**
     * A page of files, newest first unless {@code ascending}: of {@code owner} (null: everyone's), of
     * {@code purpose} (null: any), not expired at {@code now}, after file {@code after} (null: from the start);
     * {@code limit + 1} rows are read so that the caller knows whether there are more.
     */
    public List<StoredFile> page(String owner, String purpose, Instant now, String after, boolean ascending, int limit) {
        return database.read(sql -> {
            var where = new StringBuilder("(expires_at IS NULL OR expires_at > ?)");
            var args = new ArrayList<Object>();
            args.add(now.getEpochSecond());
            if (owner != null) {
                where.append(" AND owner = ?");
                args.add(owner);
            }
            if (purpose != null) {
                where.append(" AND purpose = ?");
                args.add(purpose);
            }
            if (after != null) {
                var cursor = sql.queryOne("SELECT created_at, id FROM files WHERE id = ?",
                        r -> new Object[] {r.getLong(1), r.getString(2)}, after);
                if (cursor.isEmpty()) return List.of();
                var op = ascending ? ">" : "<";
                where.append(" AND (created_at ").append(op).append(" ? OR (created_at = ? AND id ").append(op).append(" ?))");
                args.add(cursor.get()[0]);
                args.add(cursor.get()[0]);
                args.add(cursor.get()[1]);
            }
            var order = ascending ? "ASC" : "DESC";
            args.add(limit + 1);
            return sql.query("SELECT " + COLUMNS + " FROM files WHERE " + where + " ORDER BY created_at " + order
                    + ", id " + order + " LIMIT ?", FileStore::row, args.toArray());
        });
    }

    /** The files run {@code runId}'s agent delivered, oldest first, not expired at {@code now}. */
    public List<StoredFile> ofRun(String runId, Instant now) {
        return database.read(sql -> sql.query("SELECT " + COLUMNS + " FROM files WHERE run_id = ? AND (expires_at IS NULL "
                + "OR expires_at > ?) ORDER BY created_at, id", FileStore::row, runId, now.getEpochSecond()));
    }

    /** Deletes file {@code id}; whether it was there. */
    public boolean delete(String id) {
        return database.write(sql -> sql.update("DELETE FROM files WHERE id = ?", id) == 1);
    }

    /** Deletes the files expired at {@code now}; how many. */
    public int deleteExpired(Instant now) {
        return database.write(sql -> sql.update("DELETE FROM files WHERE expires_at IS NOT NULL AND expires_at <= ?",
                now.getEpochSecond()));
    }

    /** Which of {@code hashes} a row names. */
    public Set<String> referenced(Set<String> hashes) {
        if (hashes.isEmpty()) return Set.of();
        return database.read(sql -> {
            var out = new HashSet<String>();
            var list = List.copyOf(hashes);
            for (int from = 0; from < list.size(); from += 500) {
                var batch = list.subList(from, Math.min(list.size(), from + 500));
                var marks = String.join(", ", java.util.Collections.nCopies(batch.size(), "?"));
                out.addAll(sql.query("SELECT DISTINCT sha256 FROM files WHERE sha256 IN (" + marks + ")",
                        r -> r.getString(1), batch.toArray()));
            }
            return out;
        });
    }

    private static StoredFile row(ResultSet r) throws SQLException {
        long expires = r.getLong(9);
        var expiresAt = r.wasNull() ? Optional.<Instant>empty() : Optional.of(Instant.ofEpochSecond(expires));
        return new StoredFile(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5),
                r.getString(6), r.getString(7), Instant.ofEpochSecond(r.getLong(8)), expiresAt,
                Optional.ofNullable(r.getString(10)));
    }
}
