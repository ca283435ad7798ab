package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.US_ASCII;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * A throw-away certificate authority made with the JDK's {@code keytool} at test time: a CA, a server
 * certificate for {@code 127.0.0.1} and {@code localhost}, and a client certificate, all signed by the
 * CA, written as PEM files the way an operator would hand them to {@code model.tls.*} (the CA and the
 * client chain as certificates, the client key as unencrypted PKCS#8). Nothing is checked in: every
 * run makes its own keys in a temporary directory. Immutable once made.
 */
record TestCa(Path caPem, Path clientChainPem, Path clientKeyPem, KeyStore serverKeys, KeyStore clientKeys,
              KeyStore trust) {
    static final String PASSWORD = "changeit";
    private static final Base64.Encoder MIME = Base64.getMimeEncoder(64, "\n".getBytes(US_ASCII));

    /**
     * The one CA of this test JVM, made on first use (keytool is slow to start on a busy machine, so
     * the test classes share it; it is immutable). Its files are deleted when the JVM exits.
     */
    static TestCa shared() {
        return Shared.CA;
    }

    private static final class Shared {
        static final TestCa CA = make();

        private static TestCa make() {
            try {
                var dir = Files.createTempDirectory("caduceus-test-ca");
                dir.toFile().deleteOnExit();
                var ca = create(dir);
                try (var files = Files.list(dir)) {
                    files.forEach(f -> f.toFile().deleteOnExit()); // deleted before the directory
                }
                return ca;
            } catch (Exception e) {
                throw new IllegalStateException("cannot make the test CA: " + e.getMessage(), e);
            }
        }
    }

    /** Makes the CA and both certificates in {@code dir} (three keytool runs, two of them in parallel). */
    static TestCa create(Path dir) throws Exception {
        var ca = dir.resolve("ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-dname", "CN=Caduceus Test CA", "-ext", "bc:c", "-keystore", ca.toString());
        // each leaf is signed by the CA in a copy of its key store (keytool's -signer needs it there)
        var serverStore = Files.copy(ca, dir.resolve("server.p12"));
        var clientStore = Files.copy(ca, dir.resolve("client.p12"));
        var server = CompletableFuture.runAsync(() -> keytool("-genkeypair", "-alias", "server", "-dname", "CN=localhost",
                "-signer", "ca", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-keystore", serverStore.toString()));
        keytool("-genkeypair", "-alias", "client", "-dname", "CN=caduceus-test-client", "-signer", "ca",
                "-keystore", clientStore.toString());
        server.join();

        var serverKeys = only(load(serverStore), "server");
        var clientKeys = only(load(clientStore), "client");
        var chain = clientKeys.getCertificateChain("client");
        var caCert = chain[chain.length - 1];
        var trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", caCert);

        var caPem = Files.writeString(dir.resolve("ca.pem"), pem(caCert), US_ASCII);
        var clientChain = new StringBuilder();
        for (var certificate : chain) clientChain.append(pem(certificate));
        var clientChainPem = Files.writeString(dir.resolve("client-chain.pem"), clientChain, US_ASCII);
        var key = clientKeys.getKey("client", PASSWORD.toCharArray()).getEncoded(); // PKCS#8 DER
        var clientKeyPem = Files.writeString(dir.resolve("client-key.pem"), "-----BEGIN PRIVATE KEY-----\n"
                + MIME.encodeToString(key) + "\n-----END PRIVATE KEY-----\n", US_ASCII);
        return new TestCa(caPem, clientChainPem, clientKeyPem, serverKeys, clientKeys, trust);
    }

    /** The client's TLS settings that trust this CA (and present no certificate). */
    OutboundHttp.Tls trustingTls() {
        return new OutboundHttp.Tls(Optional.of(caPem), Optional.empty(), Optional.empty());
    }

    /** The client's TLS settings that trust this CA and present the client certificate. */
    OutboundHttp.Tls clientCertificateTls() {
        return new OutboundHttp.Tls(Optional.of(caPem), Optional.of(clientChainPem), Optional.of(clientKeyPem));
    }

    /** A server TLS factory with the server certificate; {@code needClientAuth} asks for a client certificate of this CA. */
    SslContextFactory.Server serverTls(boolean needClientAuth) {
        var tls = new SslContextFactory.Server();
        tls.setKeyStore(serverKeys);
        tls.setKeyStorePassword(PASSWORD);
        if (needClientAuth) {
            tls.setNeedClientAuth(true);
            tls.setTrustStore(trust);
        }
        return tls;
    }

    private static KeyStore load(Path store) throws Exception {
        var keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    /** A key store with only the entry {@code alias} of {@code all} (its key and chain, not the CA's key). */
    private static KeyStore only(KeyStore all, String alias) throws Exception {
        var one = KeyStore.getInstance("PKCS12");
        one.load(null, null);
        one.setKeyEntry(alias, all.getKey(alias, PASSWORD.toCharArray()), PASSWORD.toCharArray(),
                all.getCertificateChain(alias));
        return one;
    }

    private static String pem(Certificate certificate) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n" + MIME.encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    /** Runs the JDK's keytool with EC keys valid for two days. */
    private static void keytool(String... arguments) {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        // a JVM tuned to start quickly: keytool then takes half the time
        command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData"));
        command.addAll(List.of(arguments));
        command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-noprompt"));
        try {
            var process = new ProcessBuilder(command).redirectErrorStream(true).start();
            var output = new String(process.getInputStream().readAllBytes(), US_ASCII);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
                throw new IllegalStateException("keytool " + String.join(" ", arguments) + " failed: " + output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running keytool", e);
        }
    }
}
