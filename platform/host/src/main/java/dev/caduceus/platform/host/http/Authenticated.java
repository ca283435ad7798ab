package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.http.Caller;

/**
 * A request's key, once checked: who it is ({@link Caller}, which handlers see) and the limit the
 * HTTP layer enforces for it. Immutable.
 *
 * @param requestsPerMinute the key's rate limit; 0: none
 */
public record Authenticated(Caller caller, int requestsPerMinute) {
    /** The admin key: no limit. */
    public static final Authenticated ADMIN = new Authenticated(Caller.ADMIN_CALLER, 0);

    public Authenticated {
        requireNonNull(caller, "caller");
        if (requestsPerMinute < 0) throw new IllegalArgumentException("requestsPerMinute must be >= 0");
    }
}
