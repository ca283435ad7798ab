package dev.caduceus.plugin.web;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Cancellation;

/**
 * Ties one outbound exchange to a run's cancellation: cancelling the run cancels the exchange at once
 * (a blocked send or body read fails with {@code CANCELLED}), also when the run was cancelled before
 * the link was made. Lifecycle: made right after the exchange is prepared, closed with it; closing
 * unregisters the callback. Threading: made and closed on one thread; the callback runs on the
 * cancelling thread.
 */
final class CancelLink implements AutoCloseable {
    private final AutoCloseable registration;

    private CancelLink(AutoCloseable registration) {
        this.registration = registration;
    }

    static CancelLink of(Cancellation cancellation, OutboundHttp.Exchange exchange) {
        return new CancelLink(cancellation.onCancel(exchange::cancel));
    }

    @Override
    public void close() {
        try {
            registration.close();
        } catch (Exception e) {
            // unregistering a callback has nothing to release; a failure leaves at most a no-op cancel behind
        }
    }
}
