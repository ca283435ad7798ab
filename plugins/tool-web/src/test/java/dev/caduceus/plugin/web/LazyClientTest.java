package dev.caduceus.plugin.web;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LazyClientTest {
    @Test
    void buildsOnceOnFirstUse() {
        var lazy = new LazyClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)));
        var client = lazy.get();
        assertSame(client, lazy.get());
        assertTrue(client.connectTimeout().isPresent());
        lazy.shutdownNow();
    }

    @Test
    void aClientFirstAskedForAfterShutdownIsAlreadyShutDown() throws Exception {
        var lazy = new LazyClient(HttpClient.newBuilder());
        lazy.shutdownNow();
        var client = lazy.get();
        assertTrue(client.awaitTermination(Duration.ofSeconds(10)));
    }
}
