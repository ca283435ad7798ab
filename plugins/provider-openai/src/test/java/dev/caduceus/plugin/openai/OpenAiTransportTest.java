package dev.caduceus.plugin.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.Models;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code model.protocol} and {@code model.tls.*} settings, given to the real host (its
 * environment) and honoured on the wire by the provider the plugin contributes, called through the
 * host's model calls and its outbound client: an h2c-only upstream by prior knowledge, the default
 * protocol (HTTP/1.1 on http, ALPN on https), and TLS upstreams with a private CA, one asking for a
 * client certificate (certificates made by keytool). The upstream records each request's HTTP version
 * and the client port it came from. Each test boots its own host: the settings are fixed at boot.
 */
class OpenAiTransportTest {
    private static final String PASSWORD = "changeit";
    private static final String STREAM = "data: {\"choices\":[{\"delta\":{\"content\":\"over the wire\"},"
            + "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

    @TempDir
    Path dir;

    private final List<String> versions = new CopyOnWriteArrayList<>();
    /** The client port of each request: one port, one connection. */
    private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();
    private Server server;
    private TestHost host;

    @AfterEach
    void stop() throws Exception {
        if (host != null) host.close();
        if (server != null) server.stop();
    }

    @Test
    void h2cByPriorKnowledgeWhenTheSettingSaysSo() throws Exception {
        int port = start(new HTTP2CServerConnectionFactory(new HttpConfiguration()));
        var models = models(Map.of("model.base_url", "http://127.0.0.1:" + port + "/v1", "model.protocol", "h2c"));
        for (int i = 0; i < 2; i++)
            assertEquals(List.of("over the wire"), Fixtures.texts(Fixtures.run(models, Fixtures.request(true))));
        assertEquals(List.of("HTTP/2.0", "HTTP/2.0"), versions);
        assertEquals(1, clientPorts.stream().distinct().count(), "both calls shared one HTTP/2 connection");
    }

    @Test
    void http11AgainstAnH2cOnlyUpstreamFailsAsAConnectionError() throws Exception {
        int port = start(new HTTP2CServerConnectionFactory(new HttpConfiguration()));
        var models = models(Map.of("model.base_url", "http://127.0.0.1:" + port + "/v1", "model.protocol", "http1.1"));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(models, Fixtures.request(true)));
        assertTrue(e.getMessage().startsWith("Upstream connection failed"), e.getMessage());
        assertTrue(versions.isEmpty());
    }

    @Test
    void theDefaultProtocolIsHttp11OnPlainHttp() throws Exception {
        int port = start(new HttpConnectionFactory(new HttpConfiguration()),
                new HTTP2CServerConnectionFactory(new HttpConfiguration()));
        var models = models(Map.of("model.base_url", "http://127.0.0.1:" + port + "/v1"));
        assertEquals(List.of("over the wire"), Fixtures.texts(Fixtures.run(models, Fixtures.request(true))));
        assertEquals(List.of("HTTP/1.1"), versions, "auto: no h2c unless model.protocol says so");
    }

    @Test
    void theDefaultProtocolTakesHttp2ByAlpnOnHttps() throws Exception {
        var serverKeys = keyPair("localhost");
        var http = new HttpConfiguration();
        var h1 = new HttpConnectionFactory(http);
        var alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
        alpn.setDefaultProtocol(h1.getProtocol());
        int port = start(new SslConnectionFactory(tls(serverKeys, null), alpn.getProtocol()), alpn,
                new HTTP2ServerConnectionFactory(http), h1);
        var models = models(Map.of("model.base_url", "https://localhost:" + port + "/v1",
                "model.tls.ca_file", pemCertificate(serverKeys).toString()));
        assertEquals(List.of("over the wire"), Fixtures.texts(Fixtures.run(models, Fixtures.request(true))));
        assertEquals(List.of("HTTP/2.0"), versions);
    }

    @Test
    void aPrivateCaAndAClientCertificateFromTheTlsSettings() throws Exception {
        var serverKeys = keyPair("localhost");
        var clientKeys = keyPair("client");
        int port = startTls(tls(serverKeys, clientKeys));
        var settings = new HashMap<>(Map.of("model.base_url", "https://localhost:" + port + "/v1",
                "model.tls.ca_file", pemCertificate(serverKeys).toString(),
                "model.tls.client_cert", pemCertificate(clientKeys).toString(),
                "model.tls.client_key", pemKey(clientKeys).toString()));
        var models = models(settings);
        for (int i = 0; i < 2; i++)
            assertEquals(List.of("over the wire"), Fixtures.texts(Fixtures.run(models, Fixtures.request(true))));
        assertEquals(List.of("HTTP/1.1", "HTTP/1.1"), versions);
        assertEquals(1, clientPorts.stream().distinct().count(), "one TLS connection carried both calls");
    }

    @Test
    void withoutTlsSettingsAPrivateCaIsNotTrusted() throws Exception {
        var serverKeys = keyPair("localhost");
        int port = startTls(tls(serverKeys, null));
        var models = models(Map.of("model.base_url", "https://localhost:" + port + "/v1"));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(models, Fixtures.request(true)));
        assertTrue(e.getMessage().startsWith("Upstream TLS failed"), e.getMessage());
        assertTrue(versions.isEmpty(), "the JDK's trusted CAs, not the upstream's");
    }

    @Test
    void aCertificateIssuedForAnotherNameIsATlsError() throws Exception {
        var serverKeys = keyPair("other.example");
        int port = startTls(tls(serverKeys, null));
        var models = models(Map.of("model.base_url", "https://localhost:" + port + "/v1",
                "model.tls.ca_file", pemCertificate(serverKeys).toString()));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(models, Fixtures.request(true)));
        assertTrue(e.getMessage().startsWith("Upstream TLS failed"), e.getMessage());
        assertTrue(e.getMessage().contains("localhost"), e.getMessage());
        assertTrue(versions.isEmpty());
    }

    @Test
    void aCaFileThatCannotBeReadIsAConfigurationErrorNotRetried() throws Exception {
        var models = models(Map.of("model.base_url", "https://localhost:1/v1",
                "model.tls.ca_file", dir.resolve("missing.pem").toString()));
        var e = assertThrows(ModelException.class, () -> Fixtures.run(models, Fixtures.request(true)));
        assertFalse(e.retryable());
        assertTrue(e.getMessage().startsWith("Cannot build the upstream request: TLS settings: cannot read "),
                e.getMessage());
    }

    /** The model calls of a host with this plugin and {@code model.*} = {@code keys} (and a model name). */
    private Models models(Map<String, String> keys) {
        var settings = new HashMap<>(keys);
        settings.put("model.name", "test-model");
        host = Fixtures.host(settings);
        return host.models();
    }

    /** Starts a TLS upstream speaking HTTP/1.1. */
    private int startTls(SslContextFactory.Server tls) throws Exception {
        return start(new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(new HttpConfiguration()));
    }

    /** Starts the upstream on localhost with {@code factories} (the first one takes each connection). */
    private int start(ConnectionFactory... factories) throws Exception {
        server = new Server();
        var connector = new ServerConnector(server, factories);
        connector.setHost(InetAddress.getByName("localhost").getHostAddress());
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                versions.add(request.getConnectionMetaData().getProtocol());
                clientPorts.add(((InetSocketAddress) request.getConnectionMetaData().getRemoteSocketAddress()).getPort());
                Content.Source.asString(request, UTF_8);
                response.getHeaders().put("Content-Type", "text/event-stream");
                Content.Sink.write(response, true, STREAM, callback);
                return true;
            }
        });
        server.start();
        return connector.getLocalPort();
    }

    /** The server's TLS: {@code keys}, and when {@code client} is set, a client certificate from it required. */
    private static SslContextFactory.Server tls(Path keys, Path client) throws Exception {
        var tls = new SslContextFactory.Server();
        tls.setKeyStorePath(keys.toString());
        tls.setKeyStorePassword(PASSWORD);
        tls.setKeyStoreType("PKCS12");
        if (client != null) {
            var trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("client", load(client).getCertificate("key"));
            tls.setTrustStore(trust);
            tls.setNeedClientAuth(true);
        }
        return tls;
    }

    /** A PKCS#12 key store holding a fresh self-signed key pair for {@code name}. */
    private Path keyPair(String name) throws Exception {
        var store = dir.resolve(name + ".p12");
        run(keytool(), "-genkeypair", "-alias", "key", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=" + name, "-ext", "SAN=dns:" + name, "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        return store;
    }

    /** The store's certificate as a PEM file. */
    private Path pemCertificate(Path store) throws Exception {
        var pem = dir.resolve(store.getFileName() + ".crt.pem");
        run(keytool(), "-exportcert", "-rfc", "-alias", "key", "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", pem.toString());
        return pem;
    }

    /** The store's private key as an unencrypted PKCS#8 PEM file. */
    private Path pemKey(Path store) throws Exception {
        var key = (PrivateKey) load(store).getKey("key", PASSWORD.toCharArray());
        var pem = dir.resolve(store.getFileName() + ".key.pem");
        Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(UTF_8)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        return pem;
    }

    private static KeyStore load(Path store) throws Exception {
        var keys = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    private static String keytool() {
        return Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    }

    private static void run(String... command) throws IOException, InterruptedException {
        var process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertEquals(0, process.waitFor(), output);
    }
}
