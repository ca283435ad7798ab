package dev.caduceus.platform.host.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A DNS server that never answers: the lookup holds a pool thread, not the caller, so the total
 * timeout and a cancel from another thread still end the exchange (well before the lookup would).
 */
class HangingLookupTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch looking = new CountDownLatch(1);
    private final OutboundClient client = new OutboundClient(ProxyRules.direct(), "caduceus-test", host -> {
        looking.countDown();
        try {
            release.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new UnknownHostException(host);
    });

    @AfterEach
    void stop() {
        release.countDown();
        client.close();
    }

    @Test
    void theTotalTimeoutEndsAnExchangeWhoseLookupHangs() throws Exception {
        var request = OutboundHttp.Request.get(URI.create("http://never-answers.test/"))
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(500));
        var done = CompletableFuture.supplyAsync(() -> assertThrows(Failure.class, () -> client.send(request)));
        var failure = done.get(30, TimeUnit.SECONDS); // the lookup would take two minutes
        assertEquals(Failure.Kind.TIMEOUT, failure.kind(), failure.getMessage());
    }

    @Test
    void aCancelEndsAnExchangeWhoseLookupHangs() throws Exception {
        var exchange = client.prepare(OutboundHttp.Request.get(URI.create("http://never-answers.test/")));
        var done = CompletableFuture.supplyAsync(() -> assertThrows(Failure.class, exchange::send));
        assertTrue(looking.await(30, TimeUnit.SECONDS), "the lookup is under way");
        exchange.cancel();
        var failure = done.get(30, TimeUnit.SECONDS);
        assertEquals(Failure.Kind.CANCELLED, failure.kind(), failure.getMessage());
        exchange.close();
    }
}
