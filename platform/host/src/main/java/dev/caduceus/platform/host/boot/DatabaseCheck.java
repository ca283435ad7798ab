package dev.caduceus.platform.host.boot;

import static java.util.Objects.requireNonNull;

import dev.caduceus.platform.host.plugin.PluginHost;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.MigrationException;
import dev.caduceus.platform.host.store.Migrations;
import dev.caduceus.platform.host.store.PlatformMigrations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code caduceus db check} finds: for each owner of tables (the platform, each plugin) the migration
 * version the database is at against the newest one this installation knows (the platform's own, and
 * those in each plugin jar for the database's engine), and the nodes' leases in {@code cluster_nodes}.
 * Reads only; it never migrates. Start at {@link #of}.
 *
 * @param engine   {@code sqlite} or {@code postgresql}
 * @param location the file, or the URL without its password ({@link Database#describe()})
 * @param owners   by owner, the platform first
 * @param nodes    the leases, by node id; empty when no node runs (or the database predates them)
 */
public record DatabaseCheck(String engine, String location, List<Owner> owners, List<Node> nodes) {
    /** A lease not renewed for this long is a dead node's (the cluster's rule, migration V5). */
    public static final Duration LEASE_TIMEOUT = Duration.ofSeconds(10);

    public DatabaseCheck {
        requireNonNull(engine, "engine");
        requireNonNull(location, "location");
        owners = List.copyOf(owners);
        nodes = List.copyOf(nodes);
    }

    /** How one owner's tables compare with what this installation knows. */
    public enum State {
        /** At the newest version known. */
        CURRENT,
        /** Older than known: {@code caduceus db migrate} (or a start) applies the rest. */
        PENDING,
        /** Newer than known: migrated by a newer release, which this one cannot run against. */
        NEWER,
        /** The plugin is off here (plugins.enabled / plugins.disabled): not counted. */
        OFF,
        /** Tables of an owner no plugin jar here has: not counted. */
        NO_JAR,
        /** The plugin keeps tables, but has no migrations for this engine: it cannot start on it. */
        UNSUPPORTED
    }

    /**
     * One owner's versions.
     *
     * @param applied the newest version applied (0: none)
     * @param known   the newest version this installation has (0: none, or no jar)
     * @param note    why it is {@link State#OFF} or {@link State#UNSUPPORTED}; empty otherwise
     */
    public record Owner(String owner, int applied, int known, State state, String note) {}

    /** A node's lease: when its process started and when it last renewed the lease. */
    public record Node(String nodeId, String host, long pid, Instant started, Instant renewed) {
        public Duration age(Instant now) {
            return Duration.between(renewed, now);
        }

        /** Not renewed within {@link #LEASE_TIMEOUT}: the node is gone, and another ends its runs. */
        public boolean stale(Instant now) {
            return age(now).compareTo(LEASE_TIMEOUT) > 0;
        }
    }

    /**
     * Compares {@code db} with the platform's migrations and those in {@code plugins}' jars.
     *
     * @throws dev.caduceus.spi.store.PluginDatabase.StoreException when the database cannot be read
     */
    public static DatabaseCheck of(Database db, List<PluginHost.Found> plugins) {
        var applied = Migrations.appliedVersions(db);
        var owners = new ArrayList<Owner>();
        int platformKnown = PlatformMigrations.scripts(db.dialect()).getLast().version();
        owners.add(compare(Migrations.PLATFORM, applied.getOrDefault(Migrations.PLATFORM, 0), platformKnown, true, ""));
        Map<String, Owner> byPlugin = new TreeMap<>();
        for (var plugin : plugins) {
            int have = applied.getOrDefault(plugin.id(), 0);
            int known;
            try {
                var scripts = Migrations.fromJar(plugin.jar(), plugin.id(), db.dialect());
                if (scripts.isEmpty() && have == 0) continue;          // keeps no tables
                known = scripts.isEmpty() ? 0 : scripts.getLast().version();
            } catch (MigrationException e) {
                byPlugin.put(plugin.id(), new Owner(plugin.id(), have, 0,
                        plugin.enabled() ? State.UNSUPPORTED : State.OFF, e.getMessage()));
                continue;
            }
            byPlugin.put(plugin.id(), compare(plugin.id(), have, known, plugin.enabled(),
                    plugin.enabled() ? "" : plugin.reason()));
        }
        applied.forEach((owner, version) -> {
            if (!owner.equals(Migrations.PLATFORM) && !byPlugin.containsKey(owner))
                byPlugin.put(owner, new Owner(owner, version, 0, State.NO_JAR, "no plugin jar with this id here"));
        });
        owners.addAll(byPlugin.values());
        boolean leases = applied.getOrDefault(Migrations.PLATFORM, 0) >= 5; // cluster_nodes came with V5
        return new DatabaseCheck(Migrations.folder(db.dialect()), db.describe(), owners, leases ? nodes(db) : List.of());
    }

    private static Owner compare(String owner, int applied, int known, boolean enabled, String note) {
        if (!enabled) return new Owner(owner, applied, known, State.OFF, note);
        var state = applied > known ? State.NEWER : applied < known ? State.PENDING : State.CURRENT;
        return new Owner(owner, applied, known, state, note);
    }

    private static List<Node> nodes(Database db) {
        return db.read(sql -> sql.query("SELECT node_id, host, pid, started_at, renewed_at FROM cluster_nodes ORDER BY node_id",
                r -> new Node(r.getString(1), r.getString(2), r.getLong(3), Instant.ofEpochMilli(r.getLong(4)),
                        Instant.ofEpochMilli(r.getLong(5)))));
    }

    /** 0 when nothing counted is pending or newer; 1 otherwise ({@code caduceus db check}'s exit status). */
    public int exitCode() {
        return owners.stream().anyMatch(o -> o.state() == State.PENDING || o.state() == State.NEWER
                || o.state() == State.UNSUPPORTED) ? 1 : 0;
    }
}
