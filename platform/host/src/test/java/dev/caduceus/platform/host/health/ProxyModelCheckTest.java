package dev.caduceus.platform.host.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The proxy-mode `model` readiness check in proxy mode: probes {proxy_url}/health. */
class ProxyModelCheckTest {

    private final OutboundClient http = new OutboundClient(ProxyRules.direct(), "caduceus-test");

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void aReachableRemoteIsHealthyWithModeProxyAndAnUnreachableOneDegraded() throws Exception {
        var asked = new java.util.concurrent.atomic.AtomicReference<String>();
        try (var remote = new ServerSocket(0)) {
            var server = Thread.ofVirtual().start(() -> { // one HTTP exchange, by hand
                try (var socket = remote.accept()) {
                    var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                    asked.set(in.readLine());
                    while (!in.readLine().isEmpty()) { } // headers
                    socket.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            var up = CoreChecks.proxyModel(new ModelProbe(http,
                    URI.create("http://127.0.0.1:" + remote.getLocalPort() + "/health"), null, Clock.systemUTC())).get();
            server.join(5000);
            assertTrue(up.ok());
            assertEquals("proxy", up.details().get("mode"));
            assertEquals(true, up.details().get("reachable"));
            assertEquals("GET /health HTTP/1.1", asked.get(), "the remote's /health was asked");
        }
        int closedPort;
        try (var s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        var down = CoreChecks.proxyModel(new ModelProbe(http, URI.create("http://127.0.0.1:" + closedPort + "/health"), null,
                Clock.systemUTC())).get();
        assertFalse(down.ok());
        assertEquals(false, down.details().get("reachable"));
        assertEquals("proxy", down.details().get("mode"));
    }
}
