package dev.caduceus.platform.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.net.URI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A 401 reaches the caller as the 401 it is, body included, with or without {@code WWW-Authenticate}
 * (OpenAI answers a wrong key without one; Jetty's authentication handler called that a protocol
 * violation).
 */
class UnauthorizedAnswerTest {
    private Server server;
    private URI base;
    private OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        var connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(401);
                if (Request.getPathInContext(request).equals("/challenge"))
                    response.getHeaders().put("WWW-Authenticate", "Bearer realm=\"api\"");
                response.getHeaders().put("Content-Type", "application/json");
                Content.Sink.write(response, true, "{\"error\":{\"message\":\"Incorrect API key\"}}", callback);
                return true;
            }
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.stop();
    }

    @Test
    void a401WithoutAChallengeIsAnAnswer() throws Exception {
        for (var path : new String[] {"/plain", "/challenge"}) {
            try (var r = client.send(OutboundHttp.Request.post(base.resolve(path), "application/json",
                    "{}".getBytes(UTF_8)))) {
                assertEquals(401, r.status(), path);
                assertEquals("{\"error\":{\"message\":\"Incorrect API key\"}}", r.text(1000), path);
            }
        }
    }
}
