package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.net.URI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls made one after another, each reading its body to the end, share one connection: the end of a
 * body is reported only once the connection is back in the pool (Jetty signals the end of the
 * content first, so a caller quick enough used to open a second connection now and then).
 */
class SequentialReuseTest {
    private TestServers.Upstream server;
    private URI base;
    private OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.Upstream.http((request, response, callback) -> {
            Content.Source.asString(request, UTF_8);
            response.getHeaders().put("Content-Type", "text/event-stream");
            Content.Sink.write(response, true, "data: one\n\ndata: [DONE]\n\n", callback);
            return true;
        });
        base = server.uri("");
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void oneConnectionCarriesSequentialCalls() throws Exception {
        for (int i = 0; i < 500; i++) {
            try (var r = client.send(OutboundHttp.Request.post(base.resolve("/c"), "application/json", "{}".getBytes(UTF_8)))) {
                if (i % 2 == 0) {
                    assertTrue(r.text(1000).startsWith("data: one"));
                } else {
                    var events = r.events();
                    while (events.next().isPresent()) {
                        // to the end
                    }
                }
            }
        }
        var stats = client.poolStats();
        assertEquals(1, stats.size(), stats.toString());
        assertEquals(0, stats.getFirst().active(), stats.toString());
        assertEquals(1, stats.getFirst().idle(), stats.toString());
    }
}
