package dev.caduceus.platform.host.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.http.Caller;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The named API keys ({@code caduceus key add NAME}), each a tenant with a {@link KeyPolicy}, kept
 * in the {@code api_keys} table of {@code caduceus.db}. A key is {@code cdk_<id>_<secret>}: the id
 * finds its row, the row holds the salted hash of the whole key ({@link KeyHash}), never the key.
 *
 * <p>Requests are checked against a copy of the table held in memory; every change ({@link #add},
 * {@link #revoke}, from any process: the CLI while the server runs) rewrites the stamp file
 * {@code keys.stamp} next to the database with a new random id, and a request that finds another
 * id there (one small file read) reloads the copy first, so a change counts from the next request on. (Reading the
 * row on every request instead cost a third of the server's throughput at 64 clients: the
 * database's reader pool became the bottleneck.) {@code last_used_at} is written at most once a
 * minute per key, off the request's thread. Thread-safe.
 */
public final class NamedKeys {
    /** How every named key starts. */
    public static final String PREFIX = "cdk_";
    private static final Logger LOG = LoggerFactory.getLogger(NamedKeys.class);
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern TOKEN = Pattern.compile("cdk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})");
    private static final Set<String> RESERVED = Set.of(Caller.ADMIN, Caller.ANONYMOUS_NAME);
    private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Database db;
    private final SecureRandom random;
    private final Clock clock;
    private final ConcurrentHashMap<String, Instant> touched = new ConcurrentHashMap<>();
    private final java.nio.file.Path stamp; // null on PostgreSQL: the table itself is the stamp
    private volatile String tableStamp = "";
    private volatile long tableStampReadAt = Long.MIN_VALUE;
    private volatile Snapshot snapshot;

    /** The table as of one stamp: rows in force by key id, and policies by name. */
    private record Snapshot(String stamp, java.util.Map<String, Row> byId,
                            java.util.Map<String, KeyPolicy> byName) {}

    /** A key in force. */
    private record Row(String name, KeyHash hash, KeyPolicy policy) {}

    /** One key as {@code key list} shows it (never the key). */
    public record Entry(String name, KeyPolicy policy, Instant createdAt, Optional<Instant> lastUsedAt,
                        Optional<Instant> revokedAt) {}

    /** A key just added: {@code key} is shown once and stored nowhere. */
    public record Added(String name, String key) {
        @Override
        public String toString() {
            return "Added[" + name + ", <redacted>]";
        }
    }

    /** A request's key, found and not revoked. */
    public record Match(String name, KeyPolicy policy) {}

    public NamedKeys(Database db, SecureRandom random, Clock clock) {
        this.db = db;
        this.random = random;
        this.clock = clock;
        this.stamp = db.file().map(f -> f.resolveSibling("keys.stamp")).orElse(null);
    }

    /** The table in memory, reloaded when the stamp changed since it was read. */
    private Snapshot current() {
        var now = stampTime();
        var snap = snapshot;
        if (snap != null && snap.stamp().equals(now)) return snap;
        synchronized (this) {
            snap = snapshot;
            if (snap != null && snap.stamp().equals(now)) return snap;
            var rows = db.read(sql -> sql.query("SELECT key_id, name, key_hash, policy_json FROM api_keys"
                    + " WHERE revoked_at IS NULL", r -> new Object[] {r.getString(1), r.getString(2), r.getString(3),
                    r.getString(4)}));
            var byId = new java.util.HashMap<String, Row>();
            var byName = new java.util.HashMap<String, KeyPolicy>();
            for (var r : rows) {
                var row = new Row((String) r[1], KeyHash.parse((String) r[2]), policy((String) r[3]));
                byId.put((String) r[0], row);
                byName.put(row.name(), row.policy());
            }
            snap = new Snapshot(now, java.util.Map.copyOf(byId), java.util.Map.copyOf(byName));
            snapshot = snap;
            return snap;
        }
    }

    /**
     * The stamp's content, a random id per change. (Not its modification time: file times move in
     * steps of a few milliseconds, so an add and a revoke in quick succession could share one.)
     */
    private String stampTime() {
        if (stamp == null) return tableStamp();
        try {
            return java.nio.file.Files.readString(stamp);
        } catch (java.io.IOException e) {
            return ""; // no change made yet
        }
    }

    /**
     * On PostgreSQL, shared by nodes on other hosts where no file reaches: what every add and revoke
     * changes (the number of rows, the newest creation, the newest revocation), read at most once a
     * second, so a key added or revoked on one node is in force on every node within about a second.
     */
    private String tableStamp() {
        long now = System.nanoTime();
        if (now - tableStampReadAt < 1_000_000_000L && tableStampReadAt != Long.MIN_VALUE) return tableStamp;
        tableStamp = db.read(sql -> sql.queryOne("SELECT COUNT(*), COALESCE(MAX(created_at), 0), COALESCE(MAX(revoked_at), 0) "
                + "FROM api_keys", r -> r.getLong(1) + ":" + r.getLong(2) + ":" + r.getLong(3)).orElse(""));
        tableStampReadAt = now;
        return tableStamp;
    }

    /** Tells every process holding a copy of the table that it changed. */
    private void stampChange() {
        if (stamp == null) {
            tableStampReadAt = Long.MIN_VALUE; // this node sees its own change at once
            return;
        }
        try {
            var next = stamp.resolveSibling(stamp.getFileName() + ".tmp");
            java.nio.file.Files.writeString(next, java.util.UUID.randomUUID() + "\n");
            java.nio.file.Files.move(next, stamp, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new ApiKeyException("The key store changed, but " + stamp + " could not be written (" + e.getMessage()
                    + "); a running server sees the change once it restarts");
        }
    }

    /** Checks a key name: the profile-name rule, and not {@code admin} or {@code anonymous}. */
    public static String validName(String name) {
        if (name == null || !NAME.matcher(name).matches())
            throw new ApiKeyException("'" + name + "' is not a key name: use lower-case letters, digits, '-' and '_',"
                    + " starting with a letter or digit, at most 64 characters");
        if (RESERVED.contains(name)) throw new ApiKeyException("'" + name + "' is reserved; choose another key name");
        return name;
    }

    /** Adds key {@code name}; a name is never reused, even once revoked. */
    public Added add(String name, KeyPolicy policy) {
        validName(name);
        var idBytes = new byte[8];
        var secret = new byte[32];
        random.nextBytes(idBytes);
        random.nextBytes(secret);
        var id = HexFormat.of().formatHex(idBytes);
        var key = PREFIX + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        var hash = KeyHash.of(key, random).format();
        boolean added = db.write(sql -> {
            if (sql.queryOne("SELECT 1 FROM api_keys WHERE name = ?", r -> 1, name).isPresent()) return false;
            sql.update("INSERT INTO api_keys (name, key_id, key_hash, policy_json, created_at) VALUES (?, ?, ?, ?, ?)",
                    name, id, hash, policy.toJson().toString(), clock.millis());
            return true;
        });
        if (!added) throw new ApiKeyException("a key named '" + name + "' exists already (names are not reused, even"
                + " after 'key revoke'); choose another name");
        stampChange();
        return new Added(name, key);
    }

    /** Every key, by name. */
    public List<Entry> list() {
        return db.read(sql -> sql.query("SELECT name, policy_json, created_at, last_used_at, revoked_at FROM api_keys"
                + " ORDER BY name", r -> new Entry(r.getString(1), policy(r.getString(2)),
                Instant.ofEpochMilli(r.getLong(3)), instant(r.getObject(4)), instant(r.getObject(5)))));
    }

    /** Revokes key {@code name}; it stops working at the next request. */
    public void revoke(String name) {
        var state = db.write(sql -> {
            var row = sql.queryOne("SELECT revoked_at FROM api_keys WHERE name = ?", r -> Optional.ofNullable(r.getObject(1)), name);
            if (row.isEmpty()) return "unknown";
            if (row.get().isPresent()) return "revoked";
            sql.update("UPDATE api_keys SET revoked_at = ? WHERE name = ?", clock.millis(), name);
            return "ok";
        });
        switch (state) {
            case "unknown" -> throw new ApiKeyException("there is no key named '" + name + "' ('caduceus key list' shows them)");
            case "revoked" -> throw new ApiKeyException("the key '" + name + "' is revoked already");
            default -> stampChange();
        }
    }

    /** The policy of key {@code name} in force (revoked or unknown: none), read now. */
    public KeyPolicy policyOf(String name) {
        return current().byName().getOrDefault(name, KeyPolicy.NONE);
    }

    /** Whether key {@code name} exists and is not revoked. */
    public boolean inForce(String name) {
        return current().byName().containsKey(name);
    }

    /** Whether {@code token} looks like a named key (it is then checked here, not against the admin key). */
    public static boolean looksNamed(String token) {
        return token.startsWith(PREFIX);
    }

    /** The key {@code token} is, if it is a named key in force. */
    public Optional<Match> find(String token) {
        var m = TOKEN.matcher(token);
        if (!m.matches()) return Optional.empty();
        var row = current().byId().get(m.group(1));
        if (row == null || !row.hash().matches(token)) return Optional.empty();
        touch(row.name());
        return Optional.of(new Match(row.name(), row.policy()));
    }

    private void touch(String name) {
        var now = clock.instant();
        var last = touched.get(name);
        if (last != null && last.plus(TOUCH_EVERY).isAfter(now)) return;
        touched.put(name, now);
        Thread.ofVirtual().name("key-touch").start(() -> {
            try {
                db.write(sql -> sql.update("UPDATE api_keys SET last_used_at = ? WHERE name = ?", now.toEpochMilli(), name));
            } catch (RuntimeException e) {
                LOG.debug("Could not record the use of key {}", name, e);
            }
        });
    }

    private static KeyPolicy policy(String json) {
        try {
            return KeyPolicy.fromJson(JSON.readTree(json));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable key policy", e);
        }
    }

    private static Optional<Instant> instant(Object millis) {
        return millis == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(((Number) millis).longValue()));
    }
}
