package dev.caduceus.platform.host.store;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code LISTEN} on a few channels over a connection of its own, handing each notification to a
 * callback on one platform thread. Notifications are only a wake-up: whoever is woken reads the tables,
 * which stay the truth. So when the connection is lost, the listener reconnects (backing off up to 5 s)
 * and then calls {@code onReconnect}, because notifications sent meanwhile are gone and everyone waiting
 * must look again.
 *
 * <p>Send with SQL inside a write: {@code SELECT pg_notify(?, ?)}; PostgreSQL delivers it when (and only
 * if) that transaction commits.
 *
 * <p>Threading: the callbacks run on the listener's thread, one at a time; keep them short. Lifecycle:
 * {@link #start} connects (and fails if it cannot); {@link #close} stops the thread and closes the
 * connection.
 */
public final class PostgresListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresListener.class);
    private static final int POLL_MILLIS = 500;

    /** One notification: its channel and payload (at most 8000 bytes). */
    public record Notification(String channel, String payload) {}

    /** What the listener calls. */
    public interface Callbacks {
        void notified(Notification notification);

        /** After the connection was lost and made again: notifications may have been missed. */
        void reconnected();
    }

    private final PostgresDatabase database;
    private final List<String> channels;
    private final Callbacks callbacks;
    private final Thread thread;
    private volatile boolean closed;
    private volatile Connection connection;

    private PostgresListener(PostgresDatabase database, Set<String> channels, Callbacks callbacks) {
        this.database = database;
        this.channels = List.copyOf(channels);
        this.callbacks = callbacks;
        this.thread = Thread.ofPlatform().name("caduceus-db-listen").daemon(true).unstarted(this::loop);
    }

    /** Connects, listens on {@code channels} (plain lowercase identifiers) and starts delivering. */
    public static PostgresListener start(PostgresDatabase database, Set<String> channels, Callbacks callbacks)
            throws SQLException {
        requireNonNull(callbacks, "callbacks");
        for (String c : channels)
            if (!c.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException("bad channel name " + c);
        var listener = new PostgresListener(database, channels, callbacks);
        listener.connection = listener.connect();
        listener.thread.start();
        return listener;
    }

    private Connection connect() throws SQLException {
        var c = database.openDedicated();
        try (var st = c.createStatement()) {
            for (String channel : channels) st.execute("LISTEN " + channel);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void loop() {
        long backoff = 100;
        while (!closed) {
            try {
                var pg = connection.unwrap(PGConnection.class);
                var received = pg.getNotifications(POLL_MILLIS);
                if (received != null) {
                    for (var n : received) deliver(new Notification(n.getName(), n.getParameter()));
                }
                backoff = 100;
            } catch (SQLException e) {
                if (closed) return;
                LOG.warn("Lost the database notification connection ({}); reconnecting", e.getMessage());
                closeQuietly(connection);
                while (!closed) {
                    try {
                        TimeUnit.MILLISECONDS.sleep(backoff);
                    } catch (InterruptedException ie) {
                        return;
                    }
                    backoff = Math.min(5_000, backoff * 2);
                    try {
                        connection = connect();
                        LOG.info("Database notification connection restored");
                        safely(callbacks::reconnected);
                        break;
                    } catch (SQLException again) {
                        LOG.debug("Reconnect failed: {}", again.getMessage());
                    }
                }
            }
        }
    }

    private void deliver(Notification n) {
        safely(() -> callbacks.notified(n));
    }

    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("A database notification callback failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(Duration.ofMillis(POLL_MILLIS * 4L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection c) {
        try {
            if (c != null) c.close();
        } catch (SQLException ignored) {
            // going away
        }
    }
}
