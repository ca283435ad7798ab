package dev.caduceus.platform.host.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.outbound.OutboundHttp.Protocol;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The model probe on the host's outbound client, against a real Jetty upstream on loopback. */
class ModelProbeTest {
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private Server server;
    private String base;
    private OutboundClient http;
    private final MovableClock clock = new MovableClock();

    /** A clock the test moves by hand. */
    private static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-01-15T09:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override public ZoneId getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { return this; }
        @Override public Instant instant() { return now; }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        var connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                var path = Request.getPathInContext(request);
                asked.add(request.getMethod() + " " + path + " " + request.getHeaders().get("Authorization"));
                switch (path) {
                    case "/v1/models" -> response.setStatus(200);
                    case "/moved/models" -> {
                        response.setStatus(301);
                        response.getHeaders().put("Location", "/v1/models");
                    }
                    default -> response.setStatus(503);
                }
                callback.succeeded();
                return true;
            }
        });
        server.start();
        base = "http://127.0.0.1:" + connector.getLocalPort();
        http = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        http.close();
        server.stop();
    }

    @Test
    void asksModelsWithTheBearerKeyAndCachesTheAnswerForAMinute() {
        var probe = new ModelProbe(http, ModelProbe.modelsUri(base + "/v1/"), "sk-test", clock);
        assertTrue(probe.reachable());
        assertEquals(List.of("GET /v1/models Bearer sk-test"), asked);
        clock.advance(Duration.ofSeconds(59));
        assertTrue(probe.reachable());
        assertEquals(1, asked.size(), "cached");
        clock.advance(Duration.ofSeconds(2));
        assertTrue(probe.reachable());
        assertEquals(2, asked.size(), "probed again after 60 s");
    }

    @Test
    void anErrorStatusOrARedirectIsUnreachable() {
        assertFalse(new ModelProbe(http, ModelProbe.modelsUri(base + "/down"), null, clock).reachable());
        assertEquals(List.of("GET /down/models null"), asked);
        assertFalse(new ModelProbe(http, ModelProbe.modelsUri(base + "/moved"), null, clock).reachable());
        assertEquals("GET /moved/models null", asked.get(1));
        assertEquals(2, asked.size(), "the redirect is not followed: the real calls would not follow it either");
    }

    @Test
    void anUpstreamThatNeverAnswersIsUnreachableAfterTheTimeout() throws Exception {
        try (var silent = new ServerSocket(0)) { // accepts (the backlog), never answers
            var probe = new ModelProbe(http, URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/v1/models"), null,
                    clock);
            assertFalse(probe.reachable());
        }
    }

    @Test
    void theUpstreamsTlsFilesAndProtocolComeFromModelSettings() {
        var tree = ConfigLoader.load(Map.of("CADUCEUS_HOME", System.getProperty("java.io.tmpdir") + "/probe-home",
                "CADUCEUS__MODEL__PROTOCOL", "h2c", "CADUCEUS__MODEL__TLS__CA_FILE", "~/certs/ca.pem",
                "CADUCEUS__MODEL__TLS__CLIENT_CERT", "/etc/caduceus/client.pem",
                "CADUCEUS__MODEL__TLS__CLIENT_KEY", "/etc/caduceus/client.key"), Optional.empty(), Map.of()).config().tree();
        var tls = CoreChecks.modelTls(tree);
        assertEquals(Optional.of(Path.of(System.getProperty("user.home"), "certs", "ca.pem")), tls.caFile());
        assertEquals(Optional.of(Path.of("/etc/caduceus/client.pem")), tls.certificateFile());
        assertEquals(Optional.of(Path.of("/etc/caduceus/client.key")), tls.keyFile());
        assertEquals(Protocol.H2C, CoreChecks.modelProtocol(tree));
        var none = ConfigLoader.load(Map.of("CADUCEUS_HOME", System.getProperty("java.io.tmpdir") + "/probe-home"),
                Optional.empty(), Map.of()).config().tree();
        assertEquals(Protocol.AUTO, CoreChecks.modelProtocol(none));
        assertTrue(CoreChecks.modelTls(none).caFile().isEmpty());
    }
}
