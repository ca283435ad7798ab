package dev.caduceus.platform.outbound;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.Content;

/**
 * Jetty's response {@link Content.Source} as an {@link InputStream} read on the caller's thread: a read
 * takes the chunks Jetty has parsed, and when there is none yet it asks Jetty for more
 * ({@link Content.Source#demand}) and parks until Jetty says so. No content is copied to a queue or
 * handed between threads on the way. A failed chunk (an abort, a timeout, a broken connection) is
 * thrown as an {@link IOException} whose cause is Jetty's failure.
 *
 * <p>Threading: read on one thread; {@link #close()} (which only gives back the chunk held) from any.
 */
final class SourceStream extends InputStream {
    private final Content.Source source;
    private final Semaphore more = new Semaphore(0);
    /** Guards {@link #chunk}: a close from another thread must not give back a buffer being copied. */
    private final ReentrantLock lock = new ReentrantLock();
    private Content.Chunk chunk;
    private boolean ended;
    private boolean closed;

    SourceStream(Content.Source source) {
        this.source = source;
    }

    /** Whether the last chunk was read. */
    boolean ended() {
        lock.lock();
        try {
            return ended;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int read() throws IOException {
        var one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) return 0;
        while (true) {
            lock.lock();
            try {
                if (ended) return -1;
                if (closed) throw new IOException("the response body is closed");
                if (chunk == null) chunk = source.read();
                if (chunk != null) {
                    if (Content.Chunk.isFailure(chunk)) {
                        var failure = chunk.getFailure();
                        throw failure instanceof IOException io ? io : new IOException(failure);
                    }
                    var buffer = chunk.getByteBuffer();
                    int n = Math.min(len, buffer.remaining());
                    buffer.get(b, off, n);
                    if (!buffer.hasRemaining()) {
                        if (chunk.isLast()) ended = true;
                        chunk.release();
                        chunk = null;
                    }
                    if (n > 0) return n;
                    if (ended) return -1;
                    continue;
                }
            } finally {
                lock.unlock();
            }
            source.demand(more::release); // Jetty calls it once content (or a failure) is there
            try {
                more.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                var interrupted = new InterruptedIOException("interrupted while reading the response body");
                source.fail(interrupted);
                throw interrupted;
            }
        }
    }

    @Override
    public int available() {
        lock.lock();
        try {
            return chunk == null || Content.Chunk.isFailure(chunk) ? 0 : chunk.getByteBuffer().remaining();
        } finally {
            lock.unlock();
        }
    }

    /** Gives back the chunk held; does not fail the source (the owner aborts the response when it must). */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (chunk != null) chunk.release();
            chunk = null;
        } finally {
            lock.unlock();
        }
    }
}
