package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * What the HTTP server needs from the configuration.
 *
 * @param host                        bind address
 * @param port                        bind port; 0 picks a free one (tests)
 * @param maxBodyBytes                request body limit ({@code server.max_body_bytes})
 * @param corsOrigins                 origin allowlist; {@code "*"} allows any origin; empty allows none
 * @param sseKeepaliveSeconds         idle time after which an event stream sends {@code : keepalive}
 * @param drainTimeout                how long {@link HttpServer#stop()} waits for in-flight requests
 * @param idleTimeout                 a connection on which no byte moves for this long is closed
 *                                    ({@code server.idle_timeout_seconds})
 * @param headerTimeout               a request's headers must be complete within this
 *                                    ({@code server.header_timeout_seconds}, {@link ConnectionGuard})
 * @param maxIdleConnectionsPerClient idle connections one client address may hold; 0 = no cap
 *                                    ({@code server.max_idle_connections_per_client})
 * @param bodyMemoryPercent           the share of the maximum heap request bodies may hold at once;
 *                                    0 = no limit ({@code server.body_memory_percent}, {@link BodyBudget})
 * @param bodyPace                    the pace a request body must keep ({@code server.body_min_rate},
 *                                    {@code server.body_grace_seconds})
 */
public record HttpSettings(String host, int port, long maxBodyBytes, List<String> corsOrigins,
                           int sseKeepaliveSeconds, Duration drainTimeout, Duration idleTimeout,
                           Duration headerTimeout, int maxIdleConnectionsPerClient, int bodyMemoryPercent,
                           BodyPace bodyPace) {
    /**
     * Which key a presented bearer token is: the admin key or a named one, or none (given to
     * {@link HttpServer.Unstarted#start}, since the named keys live in the database, which opens while Jetty is built). The server may
     * hold only a hash of a key, so it never sees the key itself; implementations compare in
     * constant time. Called from any request thread.
     */
    @FunctionalInterface
    public interface KeyCheck {
        java.util.Optional<Authenticated> authenticate(String presented);
    }

    public HttpSettings {
        requireNonNull(host, "host");
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
        if (maxBodyBytes <= 0) throw new IllegalArgumentException("maxBodyBytes must be > 0");
        corsOrigins = List.copyOf(corsOrigins);
        if (sseKeepaliveSeconds <= 0) throw new IllegalArgumentException("sseKeepaliveSeconds must be > 0");
        requireNonNull(drainTimeout, "drainTimeout");
        if (drainTimeout.isNegative()) throw new IllegalArgumentException("drainTimeout must be >= 0");
        requirePositive(idleTimeout, "idleTimeout");
        requirePositive(headerTimeout, "headerTimeout");
        if (maxIdleConnectionsPerClient < 0)
            throw new IllegalArgumentException("maxIdleConnectionsPerClient must be >= 0");
        if (bodyMemoryPercent < 0 || bodyMemoryPercent > 100)
            throw new IllegalArgumentException("bodyMemoryPercent must be 0..100");
        requireNonNull(bodyPace, "bodyPace");
    }

    private static void requirePositive(Duration d, String name) {
        requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be > 0");
    }
}
