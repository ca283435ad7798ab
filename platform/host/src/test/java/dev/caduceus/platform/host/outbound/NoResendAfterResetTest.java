package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that reads a whole POST and then resets the connection gets that POST once: the failure
 * goes to the caller. (Jetty reports a request committed only after its write completed, and a reset
 * that overtook that report used to make the request look unsent, so it was sent again about every
 * other time.)
 */
class NoResendAfterResetTest {
    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger requests = new AtomicInteger();
    private final Thread acceptor = Thread.ofVirtual().start(this::serve);
    private final OutboundClient client = new OutboundClient(ProxyRules.direct(), "caduceus-test");

    NoResendAfterResetTest() throws IOException {}

    @AfterEach
    void stop() throws IOException {
        client.close();
        listener.close();
        acceptor.interrupt();
    }

    @Test
    void aPostReadAndThenResetIsReportedNotSentAgain() {
        var uri = URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/v1/chat/completions");
        for (int i = 1; i <= 40; i++) {
            var failure = assertThrows(Failure.class,
                    () -> client.send(OutboundHttp.Request.post(uri, "application/json", "{\"n\":1}".getBytes(UTF_8))));
            assertTrue(failure.requestSent(), failure.getMessage());
            assertEquals(i, requests.get(), "call " + i + " reached the server exactly once");
        }
    }

    private void serve() {
        while (!listener.isClosed()) {
            try (var socket = listener.accept()) {
                var in = new BufferedInputStream(socket.getInputStream());
                int length = 0;
                for (String line; !(line = line(in)).isEmpty(); ) {
                    var lower = line.toLowerCase(Locale.ROOT);
                    if (lower.startsWith("content-length:")) length = Integer.parseInt(lower.substring(15).strip());
                }
                if (in.readNBytes(length).length == length) requests.incrementAndGet();
                socket.setSoLinger(true, 0); // close with a reset
            } catch (IOException e) {
                if (listener.isClosed()) return;
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        var bytes = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) throw new IOException("the client closed");
            bytes.write(b);
        }
        var text = bytes.toString(ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }
}
