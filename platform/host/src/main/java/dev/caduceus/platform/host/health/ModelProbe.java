package dev.caduceus.platform.host.health;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Protocol;
import dev.caduceus.spi.outbound.OutboundHttp.Tls;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Probes {@code GET {base_url}/models} of the upstream model through the host's outbound client
 * (5 s for the whole exchange, the upstream's TLS settings and HTTP version, redirects not followed:
 * the real calls are POSTs, which never follow one), caching the answer for 60 s so a dashboard
 * polling {@code /health/detailed} does not hammer the upstream. Thread-safe: concurrent callers
 * share one probe.
 */
public final class ModelProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CACHE = Duration.ofSeconds(60);

    private final OutboundHttp http;
    private final URI uri;
    private final String apiKey;
    private final Tls tls;
    private final Protocol protocol;
    private final Clock clock;
    private boolean lastReachable; // guarded by this
    private Instant checkedAt;     // guarded by this

    /**
     * @param http     the host's outbound client
     * @param uri      what to probe: {@code {base_url}/models} ({@link #modelsUri}), or {@code {proxy_url}/health}
     * @param apiKey   sent as {@code Authorization: Bearer}, or null
     * @param tls      the upstream's TLS settings ({@code model.tls.*})
     * @param protocol the HTTP version ({@code model.protocol})
     */
    public ModelProbe(OutboundHttp http, URI uri, String apiKey, Tls tls, Protocol protocol, Clock clock) {
        this.http = http;
        this.uri = uri;
        this.apiKey = apiKey;
        this.tls = tls;
        this.protocol = protocol;
        this.clock = clock;
    }

    /** With the JDK's TLS defaults and the automatic protocol (proxy mode's remote). */
    public ModelProbe(OutboundHttp http, URI uri, String apiKey, Clock clock) {
        this(http, uri, apiKey, Tls.DEFAULT, Protocol.AUTO, clock);
    }

    /** {@code {baseUrl}/models}, without doubled slashes. */
    public static URI modelsUri(String baseUrl) {
        return URI.create(baseUrl.replaceAll("/+$", "") + "/models");
    }

    /** Whether the upstream answered 2xx within the timeout (cached for 60 s). */
    public synchronized boolean reachable() {
        var now = clock.instant();
        if (checkedAt != null && checkedAt.plus(CACHE).isAfter(now)) return lastReachable;
        lastReachable = probe();
        checkedAt = now;
        return lastReachable;
    }

    private boolean probe() {
        var request = OutboundHttp.Request.get(uri)
                .withTimeouts(TIMEOUT, TIMEOUT, TIMEOUT)
                .withTls(tls)
                .withProtocol(protocol)
                .withFollowRedirects(false);
        if (apiKey != null && !apiKey.isBlank()) request = request.withHeader("Authorization", "Bearer " + apiKey);
        try (var response = http.send(request)) {
            return response.status() / 100 == 2;
        } catch (OutboundHttp.Failure | RuntimeException e) {
            return false; // unreachable, timed out, or TLS files that cannot be read: not reachable as configured
        }
    }
}
