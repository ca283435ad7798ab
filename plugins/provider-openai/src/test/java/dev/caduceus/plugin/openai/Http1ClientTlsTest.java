package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** https against a real Jetty TLS server with a self-signed certificate made by keytool. */
class Http1ClientTlsTest {
    private static final String PASSWORD = "changeit";

    @TempDir
    Path dir;

    @Test
    void talksToATrustedServerAndReusesTheTlsConnection() throws Exception {
        var keys = keyPair("localhost");
        try (var server = new TlsServer(keys);
             var client = new Http1Client(Duration.ofSeconds(5), trusting(keys), Duration.ofSeconds(30), 4)) {
            var uri = URI.create("https://localhost:" + server.port() + "/v1/chat/completions");
            for (int i = 0; i < 2; i++) {
                try (var response = client.send(Http1Request.post(uri, new LinkedHashMap<>(), "{}".getBytes(UTF_8)))) {
                    assertEquals(200, response.status());
                    assertEquals("secure POST", new String(response.body().readAllBytes(), UTF_8));
                }
            }
            assertEquals(1, client.idleConnections(Origin.of(uri)), "one TLS connection carried both");
        }
    }

    @Test
    void refusesACertificateIssuedForAnotherName() throws Exception {
        var keys = keyPair("other.example");
        try (var server = new TlsServer(keys);
             var client = new Http1Client(Duration.ofSeconds(5), trusting(keys), Duration.ofSeconds(30), 4)) {
            var uri = URI.create("https://localhost:" + server.port() + "/");
            var e = assertThrows(SSLHandshakeException.class,
                    () -> client.send(Http1Request.post(uri, new LinkedHashMap<>(), new byte[0])));
            assertTrue(e.getMessage().contains("localhost"), e.getMessage());
        }
    }

    /** A PKCS#12 key store holding a fresh self-signed key pair for {@code name}. */
    private Path keyPair(String name) throws Exception {
        var store = dir.resolve(name + ".p12");
        var keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=" + name, "-ext", "SAN=dns:" + name, "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        return store;
    }

    /** A TLS context trusting only the certificate in {@code store}. */
    private static SSLContext trusting(Path store) throws Exception {
        var keys = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        var trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", keys.getCertificate("server"));
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        var context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        var process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertEquals(0, process.waitFor(), output);
    }

    /** Jetty with TLS on the address {@code localhost} resolves to, answering "secure <method>". */
    private static final class TlsServer implements AutoCloseable {
        private final Server server = new Server();
        private final ServerConnector connector;

        TlsServer(Path keyStore) throws Exception {
            var tls = new SslContextFactory.Server();
            tls.setKeyStorePath(keyStore.toString());
            tls.setKeyStorePassword(PASSWORD);
            tls.setKeyStoreType("PKCS12");
            connector = new ServerConnector(server, new SslConnectionFactory(tls, "http/1.1"),
                    new HttpConnectionFactory(new HttpConfiguration()));
            connector.setHost(InetAddress.getByName("localhost").getHostAddress());
            connector.setPort(0);
            server.addConnector(connector);
            server.setHandler(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    response.setStatus(200);
                    Content.Sink.write(response, true, "secure " + request.getMethod(), callback);
                    return true;
                }
            });
            server.start();
        }

        int port() {
            return connector.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.stop();
        }
    }
}
