package dev.caduceus.plugin.relay;

import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One in-flight remote request that can be aborted from another thread: by the run's
 * {@link Cancellation} (stop, client disconnect, shutdown) or by the idle deadline (no byte from the
 * remote within {@code gateway.proxy_read_timeout_seconds}, reset by {@link #touched()}). Aborting
 * cancels the pending response and closes the body, so the reader blocked on it wakes up at once and
 * the remote sees its client go away; {@link #cancelled()} and {@link #timedOut()} then tell why.
 */
final class RemoteCall implements AutoCloseable {
    private final AutoCloseable cancelHook;
    private final ScheduledFuture<?> watchdog;
    private final long idleNanos;
    private volatile long lastActivity = System.nanoTime();
    private volatile CompletableFuture<HttpResponse<InputStream>> pending;
    private volatile InputStream body;
    private volatile boolean cancelled;
    private volatile boolean timedOut;

    private RemoteCall(Cancellation cancel, ScheduledExecutorService timer, Duration idle) {
        this.idleNanos = idle.toNanos();
        long period = Math.max(10, Math.min(1000, idle.toMillis() / 10));
        this.watchdog = timer.scheduleAtFixedRate(() -> {
            if (System.nanoTime() - lastActivity > idleNanos) abort(false);
        }, period, period, TimeUnit.MILLISECONDS);
        this.cancelHook = cancel.onCancel(() -> abort(true));
    }

    static RemoteCall send(HttpClient http, HttpRequest request, Cancellation cancel, ScheduledExecutorService timer,
                           Duration idle) {
        var call = new RemoteCall(cancel, timer, idle);
        call.pending = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
        if (call.cancelled || call.timedOut) call.pending.cancel(true);
        return call;
    }

    /** Waits for the status line and headers. Throws {@link IOException} on failure or abort. */
    HttpResponse<InputStream> response() throws IOException {
        try {
            var response = pending.get();
            body = response.body();
            touched();
            if (cancelled || timedOut) closeBody();
            return response;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (CancellationException e) {
            throw new IOException("aborted", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort(true);
            throw new IOException("interrupted", e);
        }
    }

    /** The remote sent something: the idle deadline starts again. */
    void touched() {
        lastActivity = System.nanoTime();
    }

    boolean cancelled() {
        return cancelled;
    }

    boolean timedOut() {
        return timedOut;
    }

    private void abort(boolean byCancel) {
        synchronized (this) {
            if (cancelled || timedOut) return;
            if (byCancel) cancelled = true;
            else timedOut = true;
        }
        var future = pending;
        if (future != null) future.cancel(true);
        closeBody();
    }

    private void closeBody() {
        var stream = body;
        if (stream == null) return;
        try {
            stream.close();
        } catch (IOException e) {
            // closing an aborted stream: nothing left to release
        }
    }

    @Override
    public void close() {
        watchdog.cancel(false);
        try {
            cancelHook.close();
        } catch (Exception e) {
            // unregistering a callback cannot meaningfully fail; the call is over anyway
        }
        closeBody();
    }
}
