package dev.caduceus.plugin.openai;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Idle keep-alive connections per {@link Origin}. Each origin's idle connections form a LIFO stack:
 * the most recently used one is handed out first (least likely to have been closed by the server's
 * own idle timeout), and the oldest fall off the bottom when more than {@code maxIdlePerOrigin} are
 * idle. A connection idle for longer than {@code maxIdle} is closed when a borrow finds it. Thread-safe.
 */
final class ConnectionPool implements AutoCloseable {
    private final Map<Origin, Deque<Http1Connection>> idle = new ConcurrentHashMap<>();
    private final long maxIdleNanos;
    private final int maxIdlePerOrigin;
    private volatile boolean closed;

    ConnectionPool(Duration maxIdle, int maxIdlePerOrigin) {
        this.maxIdleNanos = maxIdle.toNanos();
        this.maxIdlePerOrigin = maxIdlePerOrigin;
    }

    /** The most recently released live connection to {@code origin}, marked reused; {@code null} if none. */
    Http1Connection borrow(Origin origin) {
        var stack = idle.get(origin);
        if (stack == null) return null;
        long now = System.nanoTime();
        var expired = new ArrayList<Http1Connection>();
        Http1Connection found = null;
        synchronized (stack) {
            for (Http1Connection c; found == null && (c = stack.pollFirst()) != null; ) {
                if (now - c.idleSince() > maxIdleNanos || c.isClosed()) {
                    // the top is the freshest: when it is too old, everything below is too
                    expired.add(c);
                    expired.addAll(stack);
                    stack.clear();
                } else {
                    found = c;
                }
            }
        }
        closeAll(expired);
        if (found != null) found.markReused();
        return found;
    }

    /** Takes back a connection whose last response was read to its end and allows keep-alive. */
    void release(Http1Connection connection) {
        if (closed || connection.isClosed()) {
            connection.close();
            return;
        }
        connection.markIdle(System.nanoTime());
        var stack = idle.computeIfAbsent(connection.origin(), o -> new ArrayDeque<>());
        Http1Connection evicted = null;
        synchronized (stack) {
            stack.addFirst(connection);
            if (stack.size() > maxIdlePerOrigin) evicted = stack.pollLast();
        }
        if (evicted != null) evicted.close();
        if (closed) close(); // raced with close(): do not leave this one open
    }

    /** Idle connections to {@code origin}, for tests and diagnostics. */
    int idleCount(Origin origin) {
        var stack = idle.get(origin);
        if (stack == null) return 0;
        synchronized (stack) {
            return stack.size();
        }
    }

    /** Closes every idle connection; connections released later are closed instead of kept. */
    @Override
    public void close() {
        closed = true;
        for (var stack : idle.values()) {
            List<Http1Connection> all;
            synchronized (stack) {
                all = new ArrayList<>(stack);
                stack.clear();
            }
            closeAll(all);
        }
    }

    private static void closeAll(List<Http1Connection> connections) {
        for (var c : connections) c.close();
    }
}
