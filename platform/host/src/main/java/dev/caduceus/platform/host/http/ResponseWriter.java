package dev.caduceus.platform.host.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocking writes to one Jetty response, and the "client gone" state of its request.
 *
 * <p>Each {@link #write} waits for Jetty's callback ({@link Blocker}) before returning, since an unawaited
 * write followed by another is not allowed; writes are not thread-safe, so one thread writes. The client
 * is gone when a write fails or Jetty reports a request failure; then the registered callbacks run
 * once (on whichever thread noticed) and every later write returns {@code false}.
 */
final class ResponseWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ResponseWriter.class);
    /**
     * How long a request may work before its connection is watched for a hang-up ({@link #watchHangups}).
     * Arming a watch and withdrawing it costs a selector update each way (a wake-up of a Jetty selector and
     * two {@code epoll_ctl} calls): ~5 % of the CPU of a chat turn against a model that answers at once
     * (bench/README.md, issue 48). A timer that is cancelled before it fires costs a fraction of that, so
     * an answer within this time pays for no watch, and a hang-up in it is noticed at most this much later.
     */
    static final long WATCH_AFTER_MS = 200;

    private final Request request;
    private final Response response;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Runnable> goneCallbacks = new CopyOnWriteArrayList<>();
    private final ReentrantLock watchLock = new ReentrantLock();
    private boolean watchAsked;          // guarded by watchLock
    private boolean watchStopped;        // guarded by watchLock
    private Scheduler.Task pendingWatch; // guarded by watchLock: the timer that arms the watch
    private HangupWatch watch;           // guarded by watchLock

    ResponseWriter(Request request, Response response) {
        this.request = request;
        this.response = response;
        request.addFailureListener(this::markGone);
        // A connection with no read or write pending while the handler works (a tool, the model) is
        // a client waiting for its answer, not a lost one: Jetty's default would fail the request
        // at the idle timeout and so cancel the run. Reads and writes still time out; a hang-up is
        // noticed by the watch (or at the next write where none runs).
        request.addIdleTimeoutListener(timeout -> false);
    }

    Response response() {
        return response;
    }

    /**
     * Starts noticing a hang-up while nothing is written ({@link HangupWatch}), from {@link #WATCH_AFTER_MS}
     * on if the request is still working then; once per request, after its body has been read. Where a
     * watch cannot work, hang-ups are noticed at the next write, as before.
     */
    void watchHangups() {
        watchLock.lock();
        try {
            if (watchAsked || watchStopped || gone()) return;
            watchAsked = true;
            try {
                pendingWatch = request.getComponents().getScheduler().schedule(this::armWatch, WATCH_AFTER_MS,
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                watch = HangupWatch.start(request, this::markGone); // the server is stopping: watch at once
            }
        } finally {
            watchLock.unlock();
        }
    }

    private void armWatch() {
        watchLock.lock();
        try {
            pendingWatch = null;
            if (watchStopped || gone()) return;
            watch = HangupWatch.start(request, this::markGone);
        } finally {
            watchLock.unlock();
        }
    }

    /** Whether hang-ups are watched, or will be once the request has worked {@link #WATCH_AFTER_MS} (for tests). */
    boolean watchingHangups() {
        watchLock.lock();
        try {
            if (pendingWatch != null) return true;
            return watch != null && watch.watching();
        } finally {
            watchLock.unlock();
        }
    }

    /** Ends the hang-up watch: before the last write, and before the request's callback completes. */
    void stopWatching() {
        watchLock.lock();
        try {
            if (watchStopped) return;
            watchStopped = true;
            if (pendingWatch != null) pendingWatch.cancel();
            pendingWatch = null;
            if (watch != null) watch.stop();
        } finally {
            watchLock.unlock();
        }
    }

    /** Writes {@code buffer} (may be {@code null}) and waits; {@code false} when the client is gone. */
    boolean write(boolean last, ByteBuffer buffer) {
        if (last) stopWatching();
        if (gone()) return false;
        try (var callback = Blocker.callback()) {
            response.write(last, buffer, callback);
            callback.block();
            return true;
        } catch (IOException | RuntimeException e) {
            markGone(e);
            return false;
        }
    }

    boolean gone() {
        return failure.get() != null;
    }

    /** Why the client is gone, or {@code null}. */
    Throwable failure() {
        return failure.get();
    }

    /** Runs {@code callback} when the client goes, or now if it already has. */
    void onGone(Runnable callback) {
        goneCallbacks.add(callback);
        if (gone() && goneCallbacks.remove(callback)) run(callback);
    }

    void markGone(Throwable cause) {
        if (!failure.compareAndSet(null, cause == null ? new IOException("client gone") : cause)) return;
        LOG.debug("Client gone", cause);
        for (var callback : goneCallbacks) {
            if (goneCallbacks.remove(callback)) run(callback);
        }
    }

    private static void run(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("onClientGone callback failed", e);
        }
    }
}
