package dev.caduceus.platform.host.http;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes the connections a slow client would otherwise hold forever (slowloris). Jetty's idle
 * timeout is reset by every byte, so a client trickling one header byte a second kept a connection
 * open indefinitely, and nothing limited how many. Two rules, checked by one sweep every
 * {@link #tick} on the connector's scheduler:
 *
 * <ul>
 *   <li><b>Header deadline.</b> A request's headers must be complete within {@code headerTimeout}:
 *       on a new connection counted from when it opened, on a kept-alive one from the first byte of
 *       the next request seen by a sweep (until that byte, the connector's idle timeout applies).
 *       Past it the connection is closed without an answer.
 *   <li><b>Idle connections per client.</b> A client (remote IP address) may hold at most
 *       {@code maxIdlePerClient} connections that have carried no request for {@link #IDLE_GRACE} or
 *       more; beyond that its longest-idle ones are closed. Connections handling a request (event
 *       streams included) never count, and neither do ones younger than the grace, so a burst of
 *       new connections from one client (a benchmark, a proxy warming its pool) is not cut while
 *       its requests are still being parsed. {@code 0} disables the cap.
 * </ul>
 *
 * <p>It learns of connections as a {@link Connection.Listener} bean of the connector and of each
 * request's start as an {@link HttpConfiguration.Customizer} (called once its headers are parsed),
 * whose completion listener marks the end. Lifecycle: a bean of the connector, started and stopped
 * with it. Thread-safe: Jetty calls it from its selector and handler threads, the sweep runs on
 * the scheduler.
 */
final class ConnectionGuard extends AbstractLifeCycle implements Connection.Listener, HttpConfiguration.Customizer {
    /** How long a connection must have been idle before it counts against its client's cap. */
    static final Duration IDLE_GRACE = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final Duration MAX_TICK = Duration.ofSeconds(1);
    private static final Duration MIN_TICK = Duration.ofMillis(50);

    private final long headerTimeoutNanos;
    private final int maxIdlePerClient;
    private final Duration tick;
    private final Scheduler scheduler;
    private final ConcurrentHashMap<Connection, Tracked> connections = new ConcurrentHashMap<>();
    private volatile Scheduler.Task next;

    /** One open connection and where it is in its request cycle. */
    private static final class Tracked {
        final Connection connection;
        final String client;
        final long openedAt;
        final AtomicInteger active = new AtomicInteger();
        volatile boolean served;      // a request's headers have arrived on it
        volatile long idleSince;      // when it last had no request in progress
        volatile long bytesAtIdle;    // bytes read when it became idle; more mean a next request began
        volatile long partialSince;   // when a sweep first saw those bytes; 0 until then

        Tracked(Connection connection, String client, long now) {
            this.connection = connection;
            this.client = client;
            this.openedAt = now;
            this.idleSince = now;
        }

        void requestStarted() {
            served = true;
            active.incrementAndGet();
        }

        void requestEnded() {
            if (active.decrementAndGet() > 0) return;
            bytesAtIdle = connection.getBytesIn();
            partialSince = 0;
            idleSince = System.nanoTime();
        }

        /** When the headers now awaited began to arrive (see the class comment), or 0 if they have not. */
        long headerStart(long now) {
            if (!served) return openedAt;
            if (partialSince == 0 && connection.getBytesIn() > bytesAtIdle) partialSince = now;
            return partialSince;
        }
    }

    /**
     * @param headerTimeout    the header deadline; positive
     * @param maxIdlePerClient the cap of idle connections per client; 0 for none
     * @param scheduler        runs the sweep (the connector's)
     */
    ConnectionGuard(Duration headerTimeout, int maxIdlePerClient, Scheduler scheduler) {
        if (headerTimeout.isNegative() || headerTimeout.isZero())
            throw new IllegalArgumentException("headerTimeout must be > 0");
        if (maxIdlePerClient < 0) throw new IllegalArgumentException("maxIdlePerClient must be >= 0");
        this.headerTimeoutNanos = headerTimeout.toNanos();
        this.maxIdlePerClient = maxIdlePerClient;
        this.tick = clamp(headerTimeout.dividedBy(4));
        this.scheduler = scheduler;
    }

    private static Duration clamp(Duration d) {
        if (d.compareTo(MIN_TICK) < 0) return MIN_TICK;
        return d.compareTo(MAX_TICK) > 0 ? MAX_TICK : d;
    }

    /** How often the rules are checked: a quarter of the header timeout, between 50 ms and 1 s. */
    Duration tick() {
        return tick;
    }

    @Override
    protected void doStart() {
        schedule();
    }

    @Override
    protected void doStop() {
        var task = next;
        if (task != null) task.cancel();
        connections.clear();
    }

    @Override
    public void onOpened(Connection connection) {
        var remote = connection.getEndPoint().getRemoteSocketAddress();
        var client = remote instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : String.valueOf(remote);
        connections.put(connection, new Tracked(connection, client, System.nanoTime()));
    }

    @Override
    public void onClosed(Connection connection) {
        connections.remove(connection);
    }

    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        var tracked = connections.get(request.getConnectionMetaData().getConnection());
        if (tracked != null) {
            tracked.requestStarted();
            Request.addCompletionListener(request, failure -> tracked.requestEnded());
        }
        return request;
    }

    private void schedule() {
        if (isStopping() || isStopped()) return;
        next = scheduler.schedule(this::sweepAndReschedule, tick.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void sweepAndReschedule() {
        try {
            sweep(System.nanoTime());
        } catch (RuntimeException e) {
            LOG.warn("Connection sweep failed; next one in {}", tick, e);
        } finally {
            schedule();
        }
    }

    /** Applies both rules at {@code now} (nanoTime). */
    void sweep(long now) {
        var lingering = new HashMap<String, List<Tracked>>();
        long grace = IDLE_GRACE.toNanos();
        for (var tracked : connections.values()) {
            if (tracked.active.get() > 0) continue;
            long start = tracked.headerStart(now);
            if (start != 0 && now - start >= headerTimeoutNanos) {
                close(tracked, "request headers not complete within the header timeout");
            } else if (maxIdlePerClient > 0 && now - tracked.idleSince >= grace) {
                lingering.computeIfAbsent(tracked.client, k -> new ArrayList<>()).add(tracked);
            }
        }
        lingering.forEach((client, idle) -> {
            if (idle.size() <= maxIdlePerClient) return;
            idle.sort(Comparator.comparingLong(t -> t.idleSince));
            LOG.debug("Client {} holds {} idle connections (cap {}); closing the oldest", client, idle.size(),
                    maxIdlePerClient);
            for (var tracked : idle.subList(0, idle.size() - maxIdlePerClient))
                close(tracked, "too many idle connections from this client");
        });
    }

    private void close(Tracked tracked, String why) {
        if (tracked.active.get() > 0) return; // a request began meanwhile
        LOG.debug("Closing connection from {}: {}", tracked.client, why);
        connections.remove(tracked.connection);
        tracked.connection.getEndPoint().close(new TimeoutException(why));
    }
}
