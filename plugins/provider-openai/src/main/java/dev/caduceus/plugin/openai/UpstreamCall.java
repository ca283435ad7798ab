package dev.caduceus.plugin.openai;

import dev.caduceus.spi.Cancellation;
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
 * One in-flight HTTP exchange that can be aborted from another thread: by the caller's
 * {@link Cancellation} or by the per-call deadline ({@code model.timeout_seconds}, which covers the
 * whole call, body included). Aborting cancels the pending response future and closes the body
 * stream, so a reader blocked on it wakes up at once; {@link #cancelled()} and {@link #timedOut()}
 * then tell why. Opened by {@link #send}; {@link #close()} releases the timer and the cancel hook.
 */
final class UpstreamCall implements AutoCloseable {
    private final AutoCloseable cancelHook;
    private final ScheduledFuture<?> deadline;
    private volatile CompletableFuture<HttpResponse<InputStream>> pending;
    private volatile InputStream body;
    private volatile boolean cancelled;
    private volatile boolean timedOut;

    private UpstreamCall(Cancellation cancel, ScheduledExecutorService timer, Duration timeout) {
        this.deadline = timer.schedule(() -> abort(false), timeout.toMillis(), TimeUnit.MILLISECONDS);
        this.cancelHook = cancel.onCancel(() -> abort(true));
    }

    /** Starts the call; the response (status and headers) is awaited by {@link #response()}. */
    static UpstreamCall send(HttpClient http, HttpRequest request, Cancellation cancel,
                             ScheduledExecutorService timer, Duration timeout) {
        var call = new UpstreamCall(cancel, timer, timeout);
        call.pending = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
        if (call.cancelled || call.timedOut) call.pending.cancel(true);
        return call;
    }

    /**
     * Waits for the status line and headers; the body is then read from the returned stream as it
     * arrives. Throws {@link IOException} on transport failure or abort (check the flags).
     */
    HttpResponse<InputStream> response() throws IOException {
        try {
            var response = pending.get();
            body = response.body();
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

    /** Whether the status and headers arrived (a later failure broke the body). */
    boolean answered() {
        return body != null;
    }

    boolean cancelled() {
        return cancelled;
    }

    boolean timedOut() {
        return timedOut;
    }

    private void abort(boolean byCancel) {
        if (cancelled || timedOut) return;
        if (byCancel) cancelled = true;
        else timedOut = true;
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
        deadline.cancel(false);
        try {
            cancelHook.close();
        } catch (Exception e) {
            // unregistering a callback cannot meaningfully fail; the call is over anyway
        }
        closeBody();
    }
}
