package dev.caduceus.plugin.openai;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.tool.Cancellation;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One exchange with the upstream, tied to the caller's {@link Cancellation}: a cancel aborts the
 * exchange at once ({@link OutboundHttp.Exchange#cancel()}), and {@link #cancelled()} then says the
 * failure was the caller's doing. The timeouts are the request's own (the host's client enforces
 * them). Opened by {@link #open}, which arms the hook before anything is sent; {@link #close()}
 * removes the hook and ends the exchange (releasing its connection, or discarding it when the body
 * was not read to its end).
 *
 * <p>Threading: {@link #send()}, the body reads and {@link #drain} on the calling thread; the cancel
 * hook from any thread.
 */
final class UpstreamCall implements AutoCloseable {
    private final OutboundHttp.Exchange exchange;
    private final AutoCloseable cancelHook;
    private volatile boolean cancelled;
    private volatile boolean answered;

    private UpstreamCall(OutboundHttp.Exchange exchange, Cancellation cancel) {
        this.exchange = exchange;
        this.cancelHook = cancel.onCancel(this::cancel);
    }

    /** Prepares the exchange and arms the cancel hook; {@link #send()} then sends the request. */
    static UpstreamCall open(OutboundHttp http, OutboundHttp.Request request, Cancellation cancel) {
        return new UpstreamCall(http.prepare(request), cancel);
    }

    /** Sends the request (once) and waits for the status and headers; the body then streams. */
    OutboundHttp.Response send() throws Failure {
        var response = exchange.send();
        answered = true;
        return response;
    }

    /** Whether the status and headers arrived (a later failure broke the body). */
    boolean answered() {
        return answered;
    }

    /** Whether the caller cancelled. */
    boolean cancelled() {
        return cancelled;
    }

    /**
     * Reads what follows the stream's last event ({@code [DONE]}) so its connection is reused, but
     * for at most {@code wait}: a server that holds the response open costs the connection, not the
     * caller's time. Failures here are ignored (the answer is complete).
     */
    void drain(OutboundHttp.Events events, ScheduledExecutorService timer, Duration wait) {
        var limit = timer.schedule(exchange::cancel, wait.toNanos(), TimeUnit.NANOSECONDS);
        try {
            while (events.next().isPresent()) {
                // after [DONE] nothing carries meaning
            }
        } catch (Failure e) {
            // cut off by the limit or broken after the answer was whole: close() discards the connection
        } finally {
            limit.cancel(false);
        }
    }

    private void cancel() {
        cancelled = true;
        exchange.cancel();
    }

    @Override
    public void close() {
        try {
            cancelHook.close();
        } catch (Exception e) {
            // unregistering a callback cannot meaningfully fail; the call is over anyway
        }
        exchange.close();
    }
}
