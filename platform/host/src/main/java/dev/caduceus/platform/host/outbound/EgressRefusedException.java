package dev.caduceus.platform.host.outbound;

import java.io.IOException;

/**
 * An outbound connection the {@link EgressPolicy} refused, before any byte was sent. The message
 * names the host and the reason, never the request. Immutable once thrown.
 */
public final class EgressRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    public EgressRefusedException(String message) {
        super(message, null);
    }
}
