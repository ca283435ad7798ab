package dev.caduceus.platform.host.http;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices, while a handler works without touching the connection (a tool running, the model
 * thinking), that the client closed it: Jetty itself learns of that only at the next write, which
 * for a non-streamed answer is the end of the run and for an event stream the next keepalive.
 *
 * <p>Once the request's body has been read, the only bytes an HTTP/1.1 client may still send before
 * our answer are a pipelined next request; so the watch asks the connection's {@link EndPoint} to
 * say when it becomes readable, and then reads: end of stream or a reset means the client is gone
 * ({@code onGone} runs); nothing (a spurious wake-up) means watch again; bytes mean a pipelining
 * client that is very much there, so they are handed back to the connection (its
 * {@link Connection.UpgradeTo} buffer, which it parses before reading the socket again) and the
 * watch ends. The watch must {@link #stop} before the response completes: the connection then
 * registers its own read interest for the next request, and an endpoint takes one at a time.
 *
 * <p>Thread-safe: armed and stopped on the handler's thread, woken on one of Jetty's; a lock makes
 * a wake-up that is reading finish before {@link #stop} returns, so the connection never reads
 * concurrently with it.
 */
final class HangupWatch implements Callback {
    private static final Logger LOG = LoggerFactory.getLogger(HangupWatch.class);
    private static final int PEEK_BYTES = 4096;

    private final AbstractEndPoint endPoint;
    private final Connection connection;
    private final Consumer<Throwable> onGone;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean stopped;    // guarded by lock
    private boolean registered; // guarded by lock: our read interest is (or may still be) with the endpoint

    private HangupWatch(AbstractEndPoint endPoint, Connection connection, Consumer<Throwable> onGone) {
        this.endPoint = endPoint;
        this.connection = connection;
        this.onGone = onGone;
    }

    /**
     * Starts watching {@code request}'s connection, or returns {@code null} where a watch cannot
     * work: a protocol other than HTTP/1.x, an endpoint of another kind, bytes of a next request
     * already buffered, or a read interest already taken.
     *
     * @param request the request whose body has been read to its end (or has none)
     * @param onGone  runs once, on a Jetty thread, when the client is gone
     */
    static HangupWatch start(Request request, Consumer<Throwable> onGone) {
        var meta = request.getConnectionMetaData();
        if (meta.getHttpVersion() == null || meta.getHttpVersion().getVersion() >= 20) return null;
        var connection = meta.getConnection();
        if (!(connection.getEndPoint() instanceof AbstractEndPoint endPoint)) return null;
        if (!(connection instanceof Connection.UpgradeTo)) return null;
        if (connection instanceof Connection.UpgradeFrom from && from.onUpgradeFrom() != null) return null;
        var watch = new HangupWatch(endPoint, connection, onGone);
        return watch.arm() ? watch : null;
    }

    private boolean arm() {
        lock.lock();
        try {
            if (stopped) return false;
            registered = endPoint.tryFillInterested(this);
            return registered;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the watch; after it returns the watch neither reads nor holds the endpoint's read interest. */
    void stop() {
        lock.lock();
        try {
            if (stopped) return;
            stopped = true;
            // Withdraws our interest if it is still pending; failed(..) then runs here and returns.
            if (registered) endPoint.getFillInterest().onFail(new Stopped());
            registered = false;
        } finally {
            lock.unlock();
        }
    }

    /** The connection became readable: the client closed it, reset it, or pipelined a request. */
    @Override
    public void succeeded() {
        Throwable gone = null;
        lock.lock();
        try {
            registered = false;
            if (stopped) return;
            var buffer = BufferUtil.allocate(PEEK_BYTES);
            int filled = endPoint.fill(buffer);
            if (filled < 0) {
                stopped = true;
                gone = new EofException("the client closed the connection");
            } else if (filled > 0) {
                stopped = true;
                ((Connection.UpgradeTo) connection).onUpgradeTo(buffer);
                LOG.debug("Pipelined bytes while handling; hang-up watch ended for {}", connection);
            } else {
                registered = endPoint.tryFillInterested(this);
            }
        } catch (IOException | RuntimeException e) {
            stopped = true;
            gone = e;
        } finally {
            lock.unlock();
        }
        if (gone != null) onGone.accept(gone);
    }

    /** Our interest was failed: by {@link #stop}, or the endpoint closed (shutdown, an abort). */
    @Override
    public void failed(Throwable cause) {
        lock.lock();
        try {
            registered = false;
            if (stopped) return;
            stopped = true;
        } finally {
            lock.unlock();
        }
        onGone.accept(cause);
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.BLOCKING; // onGone cancels a run: not for a selector thread
    }

    @Override
    public String toString() {
        return "HangupWatch@" + Integer.toHexString(hashCode()) + "{" + connection + "}";
    }

    /**
     * The cause {@link #stop} withdraws our read interest with: it happens once for every request the
     * watch ran for, so it carries no stack trace (filling one in walked the virtual thread's stack
     * chunks: ~1 % of the CPU of a chat request under load, perf on bench/run's S1). Nobody sees it:
     * {@link #failed} returns at once when stopped.
     */
    private static final class Stopped extends IOException {
        Stopped() {
            super("hang-up watch stopped");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** Whether the watch still runs (for tests). */
    boolean watching() {
        lock.lock();
        try {
            return !stopped;
        } finally {
            lock.unlock();
        }
    }
}
