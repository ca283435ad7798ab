package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.net.URI;
import java.util.Map;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A 401 is an answer for the caller to read, with or without a {@code WWW-Authenticate} challenge
 * (API servers, OpenAI's included, send none): the client holds no credentials to answer one with.
 * And what Jetty's protocol handlers fail a response with reaches the caller as a {@link Failure},
 * never as Jetty's unchecked exception.
 */
class UnauthorizedAnswerTest {
    private TestServers.Upstream server;
    private URI base;
    private OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.Upstream.http((request, response, callback) -> {
            Content.Source.consumeAll(request, Callback.NOOP);
            if (request.getHttpURI().getHost().equals("upstream.test")) { // asked as a proxy
                response.setStatus(407);
                Content.Sink.write(response, true, "no", callback);
                return true;
            }
            response.setStatus(401);
            if (Request.getPathInContext(request).equals("/challenge"))
                response.getHeaders().put("WWW-Authenticate", "Bearer realm=\"api\"");
            response.getHeaders().put("Content-Type", "application/json");
            Content.Sink.write(response, true, "{\"error\":{\"message\":\"Invalid API key\"}}", callback);
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
    void a401WithoutAChallengeIsHandedToTheCaller() throws Exception {
        for (var path : new String[] {"/bare", "/challenge"}) {
            try (var r = client.send(OutboundHttp.Request.post(base.resolve(path), "application/json", "{}".getBytes(UTF_8)))) {
                assertEquals(401, r.status(), path);
                assertEquals("{\"error\":{\"message\":\"Invalid API key\"}}", r.text(1000), path);
            }
            try (var r = client.send(OutboundHttp.Request.get(base.resolve(path)))) {
                assertEquals(401, r.status(), path);
                assertEquals("{\"error\":{\"message\":\"Invalid API key\"}}", r.text(1000), path);
            }
        }
    }

    @Test
    void aProxy407WithoutAChallengeIsAFailure() {
        try (var proxied = new OutboundClient(ProxyRules.fromEnvironment(Map.of("HTTP_PROXY", base.toString())), "t")) {
            assertThrows(Failure.class, () -> {
                try (var r = proxied.send(OutboundHttp.Request.get(URI.create("http://upstream.test/x")))) {
                    r.text(1000);
                }
            });
        }
    }
}
