package dev.caduceus.plugin.web;

import java.net.http.HttpClient;
import java.util.function.Supplier;

/**
 * An HTTP client built on first use. Building one initialises the JDK's default TLS context (loads and
 * parses the CA certificates, ~0.15 s of a cold start), which a start that has not yet served a web
 * tool call should not pay. Thread-safe. After {@link #shutdownNow} it hands out a client that is shut
 * down, as an eagerly built one would be.
 */
final class LazyClient implements Supplier<HttpClient> {
    private final HttpClient.Builder builder;
    private HttpClient client;   // guarded by this
    private boolean shutDown;    // guarded by this

    LazyClient(HttpClient.Builder builder) {
        this.builder = builder;
    }

    @Override
    public synchronized HttpClient get() {
        if (client == null) {
            client = builder.build();
            if (shutDown) client.shutdownNow();
        }
        return client;
    }

    synchronized void shutdownNow() {
        shutDown = true;
        if (client != null) client.shutdownNow();
    }
}
