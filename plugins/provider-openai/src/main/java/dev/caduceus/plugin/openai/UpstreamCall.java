package dev.caduceus.plugin.openai;

import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP exchange with the upstream, run on the caller's thread, that can be aborted from another
 * thread: by the caller's {@link Cancellation} or by the per-call deadline ({@code
 * model.timeout_seconds}, which covers the whole call, body included). Aborting closes the socket,
 * so a connect, write or read blocked on it fails at once; {@link #cancelled()} and
 * {@link #timedOut()} then tell why. Opened by {@link #start}; {@link #close()} releases the timer,
 * the cancel hook and the connection.
 */
final class UpstreamCall implements AutoCloseable {
    private final Http1Exchange exchange;
    private final ScheduledFuture<?> deadline;
    private final AutoCloseable cancelHook;
    private volatile boolean answered;
    private volatile boolean cancelled;
    private volatile boolean timedOut;

    private UpstreamCall(Http1Exchange exchange, Cancellation cancel, ScheduledExecutorService timer,
                         Duration timeout) {
        this.exchange = exchange;
        this.deadline = timer.schedule(() -> abort(false), timeout.toMillis(), TimeUnit.MILLISECONDS);
        this.cancelHook = cancel.onCancel(() -> abort(true));
    }

    /** Arms the deadline and the cancel hook; {@link #response()} then sends the request. */
    static UpstreamCall start(Http1Client http, Http1Request request, Cancellation cancel,
                              ScheduledExecutorService timer, Duration timeout) {
        return new UpstreamCall(http.exchange(request), cancel, timer, timeout);
    }

    /**
     * Sends the request and waits for the status line and headers; the body is then read from the
     * response as it arrives. Throws {@link IOException} on transport failure or abort (check the flags).
     */
    Http1Response response() throws IOException {
        try {
            var response = exchange.send();
            answered = true;
            return response;
        } catch (IOException e) {
            // an interrupted virtual thread's socket is closed under it: report it as the cancel it is
            if (Thread.currentThread().isInterrupted()) abort(true);
            throw e;
        }
    }

    /** Whether the status and headers arrived (a later failure broke the body). */
    boolean answered() {
        return answered;
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
        exchange.abort();
    }

    @Override
    public void close() {
        deadline.cancel(false);
        try {
            cancelHook.close();
        } catch (Exception e) {
            // unregistering a callback cannot meaningfully fail; the call is over anyway
        }
        exchange.close();
    }
}
