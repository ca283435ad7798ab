package dev.caduceus.platform.runtime.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.runtime.agent.RunService;
import dev.caduceus.platform.runtime.journal.RunFeed;
import dev.caduceus.platform.runtime.journal.RunJournal;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.host.store.PostgresDatabase;
import dev.caduceus.spi.HealthChecks.Result;
import java.sql.SQLException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process as a node among the nodes that share its database. On SQLite it is {@linkplain #alone
 * alone}: boot recovery ends every run left live, as always. On PostgreSQL ({@link #join}) it is one of
 * several:
 * <ul>
 *   <li>it has an id ({@code node_<12 hex>}, kept in the state directory so a restart is the same node) and a lease row in {@code cluster_nodes}
 *       that it renews every {@value #RENEW_SECONDS} s; a lease not renewed for {@value #LEASE_SECONDS} s
 *       is a dead node;</li>
 *   <li>every node, on each tick, takes over the live runs of dead nodes (and of no node) exactly as a restart
 *       does: it resumes its share of them ({@code runs.resume}: the runs ÷ the nodes alive; the first node to
 *       claim a run executes it; the next tick of any node takes what is left) or ends them as
 *       {@code interrupted}, and deletes their leases — so a node's death is noticed within
 *       {@value #LEASE_SECONDS} + {@value #RENEW_SECONDS} s; at boot it does the same once, before serving;</li>
 *   <li>its journal announces every commit ({@link ClusterBus}), so a reader on any node follows a run
 *       live on another; control requests for such runs go to their owner ({@link PeerCommands}).</li>
 * </ul>
 * Lease times are the database server's clock, so the nodes' clocks need not agree.
 *
 * <p>Threading: thread-safe; the ticks run on one platform thread. Lifecycle: {@link #join} or
 * {@link #alone}; {@link #start} once the run service exists, before serving; {@link #close} at shutdown
 * (deletes this node's lease, so the others do not wait for it to expire).
 */
public final class Cluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
    static final int RENEW_SECONDS = 2;
    static final int LEASE_SECONDS = 10;
    private static final String DB_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

    private final String nodeId;
    private final boolean predecessorGone; // this id's previous process (same state directory) has ended
    private final Database database;
    private final ClusterBus bus;  // null when alone
    private final Clock clock;
    private ScheduledExecutorService ticks;
    private PeerCommands commands;
    private RunJournal journal;
    private RunService runs;
    private volatile long renewedAt;  // System.nanoTime() of the last renewal
    private volatile int nodesAlive = 1;

    private Cluster(String nodeId, boolean predecessorGone, Database database, ClusterBus bus, Clock clock) {
        this.nodeId = nodeId;
        this.predecessorGone = predecessorGone;
        this.database = database;
        this.bus = bus;
        this.clock = clock;
    }

    /** The one node of a SQLite database. */
    public static Cluster alone(Database database, Clock clock) {
        return new Cluster(newNodeId(), false, database, null, clock);
    }

    /** A node with a new id every start: for tests that play several nodes in one process. */
    public static Cluster join(PostgresDatabase database, Clock clock) throws SQLException {
        String id = newNodeId();
        return new Cluster(id, false, database, ClusterBus.start(database, id), clock);
    }

    /**
     * A node of the cluster on {@code database}, whose id is kept in {@code stateDir/node_id}, so that a
     * restart is the same node: its previous process's live runs are taken over at once (one serve per
     * state directory is enforced), not when the lease expires. If a live process elsewhere holds that id
     * (a copied state directory), this node takes a new one. Listens for the other nodes at once.
     */
    public static Cluster join(PostgresDatabase database, Clock clock, java.nio.file.Path stateDir) throws SQLException {
        var file = stateDir.resolve("node_id");
        String id = readId(file).orElse(null);
        boolean gone = false;
        if (id != null) {
            String known = id;
            var row = database.read(sql -> sql.queryOne("SELECT host, pid, renewed_at, " + DB_NOW
                    + " FROM cluster_nodes WHERE node_id = ?", r -> new Object[] {r.getString(1), r.getLong(2),
                    r.getLong(3), r.getLong(4)}, known));
            if (row.isEmpty()) {
                gone = true;
            } else {
                var r = row.get();
                boolean expired = (long) r[2] < (long) r[3] - TimeUnit.SECONDS.toMillis(LEASE_SECONDS);
                boolean here = hostName().equals(r[0]);
                boolean alive = ProcessHandle.of((long) r[1]).map(ProcessHandle::isAlive).orElse(false)
                        && (long) r[1] != ProcessHandle.current().pid();
                gone = expired || (here && !alive);
                if (!gone) {
                    LOG.warn("Node id {} (from {}) is held by a live process (host {}, pid {}): a copied state directory? "
                            + "This node takes a new id", known, file, r[0], r[1]);
                    id = null;
                }
            }
        }
        if (id == null) {
            id = newNodeId();
            writeId(file, id);
        }
        return new Cluster(id, gone, database, ClusterBus.start(database, id), clock);
    }

    /** {@link #join(PostgresDatabase, Clock, java.nio.file.Path)} on PostgreSQL, else {@link #alone}. */
    public static Cluster of(Database database, Clock clock, java.nio.file.Path stateDir) throws SQLException {
        return database instanceof PostgresDatabase pg ? join(pg, clock, stateDir) : alone(database, clock);
    }

    private static java.util.Optional<String> readId(java.nio.file.Path file) {
        try {
            String text = java.nio.file.Files.readString(file).strip();
            return text.matches("node_[0-9a-f]{12}") ? java.util.Optional.of(text) : java.util.Optional.empty();
        } catch (java.io.IOException e) {
            return java.util.Optional.empty();
        }
    }

    private static void writeId(java.nio.file.Path file, String id) {
        try {
            java.nio.file.Files.writeString(file, id + "\n");
        } catch (java.io.IOException e) {
            LOG.warn("Cannot keep the node id in {} ({}): a restart will be a new node", file, e.getMessage());
        }
    }

    private static String newNodeId() {
        return "node_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    public String nodeId() {
        return nodeId;
    }

    /** True when other nodes may share the database. */
    public boolean clustered() {
        return bus != null;
    }

    /** What the run journal announces to, and watches, the other nodes. */
    public RunFeed feed() {
        return bus == null ? RunFeed.LOCAL : bus;
    }

    /**
     * Takes this node's place: alone, ends the runs an earlier process left live; in a cluster, writes
     * this node's lease, ends the runs of dead nodes, lets {@code runs} send control requests to the other
     * nodes and carry out theirs, and starts the ticks. Returns the runs interrupted now.
     */
    public int start(RunService runs, RunJournal journal, ObjectMapper json) {
        this.journal = journal;
        this.runs = runs;
        if (bus == null) return runs.recover();
        database.write(sql -> sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) "
                + "VALUES (?, ?, ?, " + DB_NOW + ", " + DB_NOW + ") ON CONFLICT (node_id) DO UPDATE SET host = excluded.host, "
                + "pid = excluded.pid, started_at = excluded.started_at, renewed_at = excluded.renewed_at",
                nodeId, hostName(), ProcessHandle.current().pid()));
        renewedAt = System.nanoTime();
        int restarted = 0;
        if (predecessorGone)
            restarted = runs.resume(journal.takeOverRunsOf(nodeId, clock.instant(), runs.resumePolicy()),
                    "when this node stopped");
        commands = new PeerCommands(database, journal, bus, nodeId, json, clock);
        commands.serveWith(runs);
        runs.bindPeers(commands);
        bus.onCommand(() -> Thread.ofVirtual().start(commands::serve));
        int interrupted = restarted + sweepDeadNodes();
        ticks = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("caduceus-cluster").daemon(true).factory());
        ticks.scheduleWithFixedDelay(this::tick, RENEW_SECONDS, RENEW_SECONDS, TimeUnit.SECONDS);
        LOG.info("Node {} joined the cluster on {} ({} node(s) alive)", nodeId, database.describe(), nodesAlive);
        return interrupted;
    }

    private void tick() {
        try {
            renew();
            sweepDeadNodes();
            commands.serve();
            commands.sweep();
            bus.purge(java.time.Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.warn("Cluster tick failed (lease renewal, dead-node sweep): {}", e.getMessage());
        }
    }

    private void renew() {
        int updated = database.write(sql -> sql.update("UPDATE cluster_nodes SET renewed_at = " + DB_NOW
                + " WHERE node_id = ?", nodeId));
        if (updated == 0) {
            LOG.error("This node's lease ({}) had expired and the other nodes took its runs over; writing it again",
                    nodeId);
            runs.abandonTakenOver();
            database.write(sql -> sql.update("INSERT INTO cluster_nodes (node_id, host, pid, started_at, renewed_at) "
                    + "VALUES (?, ?, ?, " + DB_NOW + ", " + DB_NOW + ")", nodeId, hostName(), ProcessHandle.current().pid()));
        }
        renewedAt = System.nanoTime();
    }

    /** Ends the live runs of dead nodes (and of no node) and drops their leases; returns how many runs. */
    private int sweepDeadNodes() {
        long deadBefore = database.read(sql -> sql.queryOne("SELECT " + DB_NOW, r -> r.getLong(1)).orElseThrow())
                - TimeUnit.SECONDS.toMillis(LEASE_SECONDS);
        var pending = database.read(sql -> sql.queryOne("SELECT (SELECT COUNT(*) FROM cluster_nodes WHERE renewed_at < ?), "
                        + "(SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running', 'waiting_for_approval', 'requires_action', 'stopping') "
                        + "AND (node_id IS NULL OR node_id NOT IN (SELECT node_id FROM cluster_nodes WHERE renewed_at >= ?))), "
                        + "(SELECT COUNT(*) FROM cluster_nodes WHERE renewed_at >= ?)",
                r -> new long[] {r.getLong(1), r.getLong(2), r.getLong(3)}, deadBefore, deadBefore, deadBefore).orElseThrow());
        nodesAlive = (int) pending[2];
        if (pending[0] == 0 && pending[1] == 0) return 0;
        // the sweep that finds a dead node claims its share of the runs (the runs ÷ the nodes alive); one that finds
        // only runs left over (the others' shares, unclaimed yet) takes them all
        int share = pending[0] == 0 ? Integer.MAX_VALUE
                : (int) Math.max(1, (pending[1] + nodesAlive - 1) / Math.max(1, nodesAlive));
        return runs.resume(journal.takeOverRunsOfDeadNodes(clock.instant(), deadBefore, runs.resumePolicy(), share),
                "on a node that stopped");
    }

    /** The {@code cluster} health check: this node's id, the nodes alive, the age of this node's lease. */
    public Supplier<Result> check() {
        return () -> {
            var details = new LinkedHashMap<String, Object>();
            details.put("node_id", nodeId);
            details.put("mode", bus == null ? "single" : "postgresql");
            if (bus == null) return Result.healthy(details);
            double age = (System.nanoTime() - renewedAt) / 1e9;
            details.put("nodes_alive", nodesAlive);
            details.put("lease_age_seconds", Math.round(age * 10) / 10.0);
            return age < LEASE_SECONDS ? Result.healthy(details) : Result.degraded(details);
        };
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** Stops the ticks and the listener; deletes this node's lease (its runs have ended by now). */
    @Override
    public void close() {
        if (bus == null) return;
        if (ticks != null) ticks.shutdownNow();
        try {
            database.write(sql -> sql.update("DELETE FROM cluster_nodes WHERE node_id = ?", nodeId));
        } catch (RuntimeException e) {
            LOG.debug("Could not delete this node's lease: {}", e.getMessage());
        }
        bus.close();
    }
}
