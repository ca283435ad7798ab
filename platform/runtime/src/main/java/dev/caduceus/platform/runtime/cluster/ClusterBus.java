package dev.caduceus.platform.runtime.cluster;

import dev.caduceus.platform.runtime.journal.RunFeed;
import dev.caduceus.platform.host.store.PostgresDatabase;
import dev.caduceus.platform.host.store.PostgresListener;
import dev.caduceus.spi.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes' wake-ups over PostgreSQL's {@code LISTEN/NOTIFY}, on three channels:
 * {@value #EVENTS} (payload: run ids, comma-separated: their journal changed), {@value #COMMANDS}
 * (payload: a node id: a control request waits for that node in {@code run_commands}) and
 * {@value #ANSWERS} (payload: a command id: its answer is written). Every notification is sent inside
 * the write that made the change, so it arrives after the change is visible. It is never the only
 * source of truth: waiters read the tables when woken, and everyone is woken after a reconnect.
 *
 * <p>Threading: thread-safe; callbacks run on the listener's thread. Lifecycle: {@link #start}; {@link #close}.
 */
final class ClusterBus implements RunFeed, PostgresListener.Callbacks, AutoCloseable {
    static final String EVENTS = "caduceus_run_events";
    static final String COMMANDS = "caduceus_run_commands";
    static final String ANSWERS = "caduceus_run_answers";
    /** Payloads stay well under PostgreSQL's 8000 bytes. */
    private static final int MAX_PAYLOAD = 7000;

    private final String nodeId;
    private final Map<String, CompletableFuture<Void>> runWaiters = new ConcurrentHashMap<>();
    /** When each run's current future was made (System.nanoTime()), for {@link #purge}. */
    private final Map<String, Long> watchedSince = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> answerWaiters = new ConcurrentHashMap<>();
    private volatile Runnable onCommand = () -> {};
    private PostgresListener listener;

    private ClusterBus(String nodeId) {
        this.nodeId = nodeId;
    }

    static ClusterBus start(PostgresDatabase database, String nodeId) throws SQLException {
        var bus = new ClusterBus(nodeId);
        bus.listener = PostgresListener.start(database, Set.of(EVENTS, COMMANDS, ANSWERS), bus);
        return bus;
    }

    /** What to run when a command for this node may be waiting (on the listener's thread: hand it off). */
    void onCommand(Runnable action) {
        this.onCommand = action;
    }

    @Override
    public CompletableFuture<Void> watch(String runId) {
        return runWaiters.computeIfAbsent(runId, k -> {
            watchedSince.put(k, System.nanoTime());
            return new CompletableFuture<>();
        });
    }

    /**
     * Completes (spuriously) the futures made more than {@code age} ago: a reader that found its events
     * without waiting leaves its future behind, and a finished run is never announced again. Whoever
     * still waits on one re-reads the journal, as after any wake-up.
     */
    void purge(java.time.Duration age) {
        long cutoff = System.nanoTime() - age.toNanos();
        watchedSince.forEach((id, since) -> {
            if (since < cutoff) {
                watchedSince.remove(id, since);
                wake(runWaiters, id);
            }
        });
    }

    @Override
    public void announce(Sql sql, Collection<String> runIds) {
        for (String payload : payloads(runIds)) notify(sql, EVENTS, payload);
    }

    /** A future completed when the answer to command {@code id} may be written; call before sending it. */
    CompletableFuture<Void> awaitAnswer(String commandId) {
        return answerWaiters.computeIfAbsent(commandId, k -> new CompletableFuture<>());
    }

    void forgetAnswer(String commandId) {
        answerWaiters.remove(commandId);
    }

    static void notify(Sql sql, String channel, String payload) {
        sql.queryOne("SELECT pg_notify(?, ?)", r -> Boolean.TRUE, channel, payload);
    }

    static List<String> payloads(Collection<String> ids) {
        var payloads = new ArrayList<String>();
        var current = new StringBuilder();
        for (String id : ids) {
            if (current.length() > 0 && current.length() + 1 + id.length() > MAX_PAYLOAD) {
                payloads.add(current.toString());
                current.setLength(0);
            }
            if (current.length() > 0) current.append(',');
            current.append(id);
        }
        if (current.length() > 0) payloads.add(current.toString());
        return payloads;
    }

    @Override
    public void notified(PostgresListener.Notification n) {
        switch (n.channel()) {
            case EVENTS -> {
                for (String id : n.payload().split(",")) {
                    watchedSince.remove(id);
                    wake(runWaiters, id);
                }
            }
            case COMMANDS -> {
                if (nodeId.equals(n.payload())) onCommand.run();
            }
            case ANSWERS -> wake(answerWaiters, n.payload());
            default -> { }
        }
    }

    @Override
    public void reconnected() {
        wakeAll();
        onCommand.run();
    }

    private void wakeAll() {
        runWaiters.keySet().forEach(id -> wake(runWaiters, id));
        answerWaiters.keySet().forEach(id -> wake(answerWaiters, id));
    }

    private static void wake(Map<String, CompletableFuture<Void>> waiters, String key) {
        var f = waiters.remove(key);
        if (f != null) f.complete(null);
    }

    @Override
    public void close() {
        if (listener != null) listener.close();
        wakeAll(); // nobody stays parked on a bus that is gone
    }
}
