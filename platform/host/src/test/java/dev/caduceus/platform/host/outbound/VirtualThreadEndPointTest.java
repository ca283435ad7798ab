package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint under Jetty's client, on a real loopback connection: data is announced on a virtual
 * thread as it arrives, what is left over is announced again at once, the peer's close reads as the
 * end, closing ends a waiting read (its thread exits), the idle timeout fails a waiting read, and a
 * write far larger than the socket buffers completes once the peer reads it.
 */
class VirtualThreadEndPointTest {
    private final ServerSocketChannel listener = ServerSocketChannel.open()
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    private final ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("test-scheduler", true);
    private final List<Thread> readers = new CopyOnWriteArrayList<>();
    private final ThreadFactory factory = task -> {
        var thread = Thread.ofVirtual().unstarted(task);
        readers.add(thread);
        return thread;
    };
    private final SocketChannel peer;
    private final VirtualThreadEndPoint endPoint;

    VirtualThreadEndPointTest() throws Exception {
        scheduler.start();
        var channel = SocketChannel.open(listener.getLocalAddress());
        peer = listener.accept();
        endPoint = new VirtualThreadEndPoint(scheduler, channel, factory);
        endPoint.onOpen();
    }

    @AfterEach
    void stop() throws Exception {
        endPoint.close();
        peer.close();
        listener.close();
        scheduler.stop();
    }

    /** Completes with the thread that was told, or with the failure. */
    private static final class Told implements Callback {
        final CompletableFuture<Thread> done = new CompletableFuture<>();

        @Override
        public void succeeded() {
            done.complete(Thread.currentThread());
        }

        @Override
        public void failed(Throwable x) {
            done.completeExceptionally(x);
        }

        Thread await() throws Exception {
            return done.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void dataIsAnnouncedOnAVirtualThreadAndThePeersCloseIsTheEnd() throws Exception {
        var told = new Told();
        endPoint.fillInterested(told);
        assertFalse(told.done.isDone(), "nothing arrived yet");
        peer.write(ByteBuffer.wrap("hello".getBytes(US_ASCII)));
        assertTrue(told.await().isVirtual());
        var buffer = BufferUtil.allocate(64);
        assertEquals(5, endPoint.fill(buffer));
        assertEquals("hello", BufferUtil.toString(buffer, US_ASCII));
        assertEquals(0, endPoint.fill(buffer), "nothing more yet");

        var again = new Told();
        endPoint.fillInterested(again);
        peer.shutdownOutput();
        again.await();
        assertEquals(-1, endPoint.fill(buffer));
        assertTrue(endPoint.isInputShutdown());
    }

    @Test
    void whatAFillLeftBehindIsAnnouncedAtOnce() throws Exception {
        var told = new Told();
        endPoint.fillInterested(told);
        peer.write(ByteBuffer.wrap("abcdef".getBytes(US_ASCII)));
        told.await();
        var small = BufferUtil.allocate(2);
        assertEquals(2, endPoint.fill(small));
        assertEquals("ab", BufferUtil.toString(small, US_ASCII));

        var rest = new Told();
        endPoint.fillInterested(rest); // nothing new on the wire: announced from the buffer
        rest.await();
        var buffer = BufferUtil.allocate(64);
        assertEquals(4, endPoint.fill(buffer));
        assertEquals("cdef", BufferUtil.toString(buffer, US_ASCII));
    }

    @Test
    void closingEndsAWaitingReadAndItsThread() throws Exception {
        var told = new Told();
        endPoint.fillInterested(told);
        assertEquals(1, readers.size());
        endPoint.close();
        var failure = assertFailed(told);
        assertTrue(failure instanceof IOException || failure.getCause() instanceof IOException, failure.toString());
        assertTrue(readers.getFirst().join(java.time.Duration.ofSeconds(10)), "the reading thread exited");
        assertFalse(endPoint.isOpen());
    }

    @Test
    void theIdleTimeoutFailsAWaitingRead() throws Exception {
        endPoint.setIdleTimeout(200);
        var told = new Told();
        endPoint.fillInterested(told);
        assertInstanceOf(TimeoutException.class, assertFailed(told));
    }

    @Test
    void aWriteMuchLargerThanTheSocketBuffersCompletesWhenThePeerReads() throws Exception {
        var bytes = new byte[16 * 1024 * 1024];
        new Random(7).nextBytes(bytes);
        var written = new Told();
        Thread.ofVirtual().start(() -> endPoint.write(written, ByteBuffer.wrap(bytes)));
        var received = ByteBuffer.allocate(bytes.length);
        while (received.hasRemaining() && peer.read(received) >= 0) { }
        written.await();
        assertArrayEquals(bytes, received.array());
    }

    private static Throwable assertFailed(Told told) throws InterruptedException {
        try {
            told.done.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("neither told nor failed within 10 s");
        }
        throw new AssertionError("told of data instead of failed");
    }
}
