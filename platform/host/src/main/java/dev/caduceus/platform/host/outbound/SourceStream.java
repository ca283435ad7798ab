package dev.caduceus.platform.host.outbound;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.Content;

/**
 * Jetty's response {@link Content.Source} as an {@link InputStream}. Jetty's own thread pumps the
 * source: it reads every chunk parsed, queues it and asks for more from inside its callback, so the
 * thread that read the connection ({@link VirtualThreadEndPoint}'s) goes on to read it again; the
 * caller's thread takes chunks off the queue and parks only when it is empty. (Asking for more from
 * the caller's thread instead would start a reading thread for every read that finds nothing parsed
 * yet; with Jetty's selector it cost a system call and a context switch each.) At most {@value #MAX_QUEUED} bytes wait in the queue: beyond that the
 * pump pauses and the reader restarts it once it has taken them, so a slow reader holds back the
 * server, as TCP would. A failed chunk (an abort, a timeout, a broken connection) is thrown as an
 * {@link IOException} whose cause is Jetty's failure.
 *
 * <p>Threading: {@link #start} on the Jetty thread that hands over the source; read on one thread;
 * {@link #close()} (which gives back the queued chunks) from any.
 */
final class SourceStream extends InputStream {
    static final int MAX_QUEUED = 256 * 1024;

    private final Content.Source source;
    /** {@link #pump} as Jetty's demand callback: it never blocks (the lock is held for a queue operation only). */
    private final Runnable pumpAgain = org.eclipse.jetty.util.thread.Invocable.from(
            org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING, this::pump);
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition readable = lock.newCondition();
    private final ArrayDeque<Content.Chunk> queue = new ArrayDeque<>();
    private long queuedBytes;
    /** A demand is outstanding or the pump runs; false once it paused (queue full) or ended. */
    private boolean pumping;
    /** The last chunk or a failure was queued: the pump is over. */
    private boolean finished;
    private boolean ended;
    private boolean closed;

    private SourceStream(Content.Source source) {
        this.source = source;
    }

    /** A stream over {@code source} whose pump starts now, on the calling (Jetty) thread. */
    static SourceStream start(Content.Source source) {
        var stream = new SourceStream(source);
        stream.pumping = true;
        stream.pump();
        return stream;
    }

    /** Reads what is parsed into the queue, then asks for more, until the queue is full or the body ends. */
    private void pump() {
        while (true) {
            var chunk = source.read();
            if (chunk == null) {
                source.demand(pumpAgain); // called back (on a Jetty thread) once there is more
                return;
            }
            lock.lock();
            try {
                if (closed) {
                    chunk.release();
                    pumping = false;
                    return;
                }
                boolean last = chunk.isLast() || Content.Chunk.isFailure(chunk);
                if (chunk.hasRemaining() || last) {
                    queue.add(chunk);
                    queuedBytes += chunk.remaining();
                    readable.signal();
                } else {
                    chunk.release();
                }
                if (last) {
                    finished = true;
                    pumping = false;
                    return;
                }
                if (queuedBytes >= MAX_QUEUED) {
                    pumping = false; // the reader restarts it
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Whether the whole body arrived (its last chunk is queued or read), read or not. */
    boolean received() {
        lock.lock();
        try {
            if (ended) return true;
            var last = queue.peekLast();
            return finished && last != null && !Content.Chunk.isFailure(last);
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
        boolean restart = false;
        lock.lock();
        try {
            while (true) {
                if (ended) return -1;
                if (closed) throw new IOException("the response body is closed");
                var chunk = queue.peek();
                if (chunk != null) {
                    if (Content.Chunk.isFailure(chunk)) {
                        var failure = chunk.getFailure();
                        throw failure instanceof IOException io ? io : new IOException(failure);
                    }
                    var buffer = chunk.getByteBuffer();
                    int n = Math.min(len, buffer.remaining());
                    buffer.get(b, off, n);
                    queuedBytes -= n;
                    if (!buffer.hasRemaining()) {
                        queue.poll();
                        if (chunk.isLast()) ended = true;
                        chunk.release();
                    }
                    if (!pumping && !finished && queuedBytes < MAX_QUEUED / 2) {
                        pumping = true;
                        restart = true;
                    }
                    if (n > 0) return n;
                    if (ended) return -1;
                    continue;
                }
                if (!pumping && !finished) { // paused with a full queue that is now read
                    pumping = true;
                    restart = true;
                }
                if (restart) break;
                try {
                    readable.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    var interrupted = new InterruptedIOException("interrupted while reading the response body");
                    source.fail(interrupted);
                    throw interrupted;
                }
            }
        } finally {
            lock.unlock();
            if (restart) source.demand(pumpAgain);
        }
        return read(b, off, len); // the pump runs again: wait for what it brings
    }

    @Override
    public int available() {
        lock.lock();
        try {
            var chunk = queue.peek();
            return chunk == null || Content.Chunk.isFailure(chunk) ? 0 : (int) Math.min(Integer.MAX_VALUE, queuedBytes);
        } finally {
            lock.unlock();
        }
    }

    /** Gives back the queued chunks; does not fail the source (the owner aborts the response when it must). */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (var chunk : queue) chunk.release();
            queue.clear();
            queuedBytes = 0;
            readable.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
