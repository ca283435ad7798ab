package dev.caduceus.platform.host.outbound;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A Jetty {@link org.eclipse.jetty.io.EndPoint} over a blocking {@link SocketChannel} whose waiting is
 * done by virtual threads instead of a selector thread: when Jetty asks to be told of data, a virtual
 * thread reads (the JDK parks it until the socket is readable, with its pollers on the carrier
 * threads) into this endpoint's buffer, then runs Jetty's fill callback, which parses and notifies on
 * that same virtual thread; if the callback asks for more, the same thread reads again. Writes block
 * the writing thread until all is written (a virtual thread parks). Everything above this, HTTP/1.1,
 * HTTP/2, TLS, proxies, pooling, timeouts, stays Jetty's.
 *
 * <p>Why: with a selector, every response wakes a platform thread of its own that parses and hands
 * over to the caller's virtual thread; under load on two cores that thread cost about a tenth of a
 * turn's CPU (bench/README.md, issue 19's item 6), while the JDK's pollers run on carriers that are
 * awake anyway.
 *
 * <p>Threading: Jetty calls {@link #fill} and {@link #flush} from any thread; the buffer belongs to the
 * reading thread while it reads (then it is empty, and {@code fill} finds nothing), else to whoever
 * holds the lock.
 */
final class VirtualThreadEndPoint extends AbstractEndPoint {
    static final int BUFFER_BYTES = 16 * 1024;

    private final SocketChannel channel;
    private final ThreadFactory readers;
    private final ReentrantLock lock = new ReentrantLock();
    private final Runnable readLoop = this::readLoop;
    /** Read and not yet filled, in flush mode; null until the first read. */
    private ByteBuffer inbound;
    /** A reading thread runs (reading, or running Jetty's callback); it reads again if asked meanwhile. */
    private boolean readerRuns;
    /** A read into {@link #inbound} is under way (it was empty then): the buffer is the reader's. */
    private boolean reading;
    /** Jetty waits to be told of data (needsFillInterest came, fillable not yet called). */
    private boolean interested;
    /** The peer closed its side, or reading failed (reported as the end, as Jetty's own endpoint does). */
    private boolean ended;
    private boolean connectionClosed;

    VirtualThreadEndPoint(Scheduler scheduler, SocketChannel channel, ThreadFactory readers) {
        super(scheduler);
        this.channel = channel;
        this.readers = readers;
    }

    @Override
    public int fill(ByteBuffer buffer) throws IOException {
        if (isInputShutdown()) return -1;
        lock.lock();
        try {
            if (reading) return 0; // the buffer was empty when that read began, and the reader owns it
            if (inbound != null && inbound.hasRemaining()) {
                int n = BufferUtil.append(buffer, inbound);
                if (n > 0) notIdle();
                return n;
            }
            if (!ended) return 0;
        } finally {
            lock.unlock();
        }
        shutdownInput();
        return -1;
    }

    @Override
    public boolean flush(ByteBuffer... buffers) throws IOException {
        try {
            while (remains(buffers)) { // blocking: a write parks until there is room, but may write part
                if (channel.write(buffers) == 0) return false; // not in blocking mode; WriteFlusher retries
                notIdle();
            }
        } catch (IOException e) {
            throw new EofException(e);
        }
        return true;
    }

    private static boolean remains(ByteBuffer[] buffers) {
        for (var b : buffers) if (b.hasRemaining()) return true;
        return false;
    }

    @Override
    protected void needsFillInterest() {
        boolean start;
        lock.lock();
        try {
            interested = true;
            start = !readerRuns;
            readerRuns = true; // its loop skips the read when data or the end is here already
        } finally {
            lock.unlock();
        }
        if (start) readers.newThread(readLoop).start();
    }

    /** Reads while Jetty wants data; runs Jetty's callback on this thread. */
    private void readLoop() {
        while (true) {
            boolean read;
            lock.lock();
            try {
                read = !ended && (inbound == null || !inbound.hasRemaining());
                reading = read;
            } finally {
                lock.unlock();
            }
            if (read) read();
            lock.lock();
            try {
                // closed on our side (close() wakes the read): the close fails the interest, as a selector's does
                if (!interested || !isOpen()) {
                    readerRuns = false;
                    return;
                }
                interested = false;
            } finally {
                lock.unlock();
            }
            getFillInterest().fillable();
            lock.lock();
            try {
                if (!interested) { // the callback did not ask again; a later ask starts a new reader
                    readerRuns = false;
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** One blocking read into the (empty) buffer, which the reader owns meanwhile ({@link #reading}). */
    private void read() {
        if (inbound == null) inbound = ByteBuffer.allocateDirect(BUFFER_BYTES);
        inbound.clear();
        int n;
        try {
            n = channel.read(inbound);
        } catch (IOException | RuntimeException e) { // reset, or closed under the read
            n = -1;
        }
        inbound.flip();
        if (n > 0) notIdle();
        lock.lock();
        try {
            reading = false;
            if (n < 0) ended = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected void onIncompleteFlush() {
        // a blocking write never leaves bytes behind; should one, finish it on a thread that may block
        readers.newThread(() -> getWriteFlusher().completeWrite()).start();
    }

    @Override
    protected void doShutdownOutput() {
        try {
            if (channel.isOpen()) channel.shutdownOutput();
        } catch (IOException e) {
            // the connection is broken already; close() follows
        }
    }

    @Override
    protected void doClose() {
        try {
            channel.close(); // a read in progress ends with an exception
        } catch (IOException e) {
            // nothing more to release
        }
        super.doClose();
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        Connection connection;
        lock.lock();
        try {
            if (connectionClosed) return;
            connectionClosed = true;
            connection = getConnection();
        } finally {
            lock.unlock();
        }
        if (connection != null) connection.onClose(cause); // what a selector does when it destroys an endpoint
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public Object getTransport() {
        return channel;
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        try {
            return channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        try {
            return channel.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }
}
