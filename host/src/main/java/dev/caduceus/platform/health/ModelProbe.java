package dev.caduceus.platform.health;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Probes {@code GET {base_url}/models} of the upstream model (5 s timeout), caching the answer for
 * 60 s so a dashboard polling {@code /health/detailed} does not hammer the upstream. Thread-safe.
 */
public final class ModelProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CACHE = Duration.ofSeconds(60);

    private final URI modelsUri;
    private final String apiKey;
    private final Clock clock;
    private HttpClient client; // built at the first probe: building one initialises the JDK's default TLS context (loads and parses the CA certificates, ~0.15 s of a cold start); guarded by this
    private boolean lastReachable;
    private Instant checkedAt;

    public ModelProbe(String baseUrl, String apiKey, Clock clock) {
        this(URI.create(baseUrl.replaceAll("/+$", "") + "/models"), apiKey, clock);
    }

    /** Probes {@code uri} itself (proxy mode: {@code {proxy_url}/health}). */
    public ModelProbe(URI uri, String apiKey, Clock clock) {
        this.modelsUri = uri;
        this.apiKey = apiKey;
        this.clock = clock;
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
        var request = HttpRequest.newBuilder(modelsUri).timeout(TIMEOUT).GET();
        if (apiKey != null && !apiKey.isBlank()) request.header("Authorization", "Bearer " + apiKey);
        try {
            if (client == null) client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
            var response = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() / 100 == 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false;
        }
    }
}
