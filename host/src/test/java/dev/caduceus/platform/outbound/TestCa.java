package dev.caduceus.platform.outbound;

import static java.nio.charset.StandardCharsets.US_ASCII;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
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

    /** Makes the CA and both certificates in {@code dir} (a few keytool runs, a few seconds). */
    static TestCa create(Path dir) throws Exception {
        var keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        var ca = dir.resolve("ca.p12");
        keytool(keytool, "-genkeypair", "-alias", "ca", "-dname", "CN=Caduceus Test CA", "-ext", "bc:c",
                "-keystore", ca.toString());
        var caPem = dir.resolve("ca.pem");
        keytool(keytool, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caPem.toString());
        var server = signed(keytool, dir, ca, "server", "CN=localhost", "SAN=ip:127.0.0.1,dns:localhost");
        var client = signed(keytool, dir, ca, "client", "CN=caduceus-test-client", null);

        var caCert = certificates(caPem).getFirst();
        var trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", caCert);

        var clientChain = dir.resolve("client-chain.pem");
        Files.writeString(clientChain, Files.readString(client.certificate()) + Files.readString(caPem), US_ASCII);
        var clientKey = dir.resolve("client-key.pem");
        var key = client.keys().getKey("client", PASSWORD.toCharArray()).getEncoded(); // PKCS#8 DER
        Files.writeString(clientKey, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(US_ASCII)).encodeToString(key)
                + "\n-----END PRIVATE KEY-----\n", US_ASCII);
        return new TestCa(caPem, clientChain, clientKey, chained(server, caCert), chained(client, caCert), trust);
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

    private record Signed(KeyStore keys, Path certificate) {}

    /** A key pair {@code alias} whose certificate the CA signed. */
    private static Signed signed(String keytool, Path dir, Path ca, String alias, String dname, String san)
            throws Exception {
        var store = dir.resolve(alias + ".p12");
        keytool(keytool, "-genkeypair", "-alias", alias, "-dname", dname, "-keystore", store.toString());
        var request = dir.resolve(alias + ".csr");
        keytool(keytool, "-certreq", "-alias", alias, "-keystore", store.toString(), "-file", request.toString());
        var certificate = dir.resolve(alias + ".pem");
        var gencert = new ArrayList<>(List.of(keytool, "-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(),
                "-infile", request.toString(), "-outfile", certificate.toString()));
        if (san != null) gencert.addAll(List.of("-ext", san));
        keytool(gencert.toArray(String[]::new));
        var keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return new Signed(keys, certificate);
    }

    /** A key store of {@code signed}'s key with the chain: its CA-signed certificate, then the CA. */
    private static KeyStore chained(Signed signed, Certificate caCert) throws Exception {
        var alias = signed.keys().aliases().nextElement();
        var chained = KeyStore.getInstance("PKCS12");
        chained.load(null, null);
        chained.setKeyEntry(alias, signed.keys().getKey(alias, PASSWORD.toCharArray()), PASSWORD.toCharArray(),
                new Certificate[] {certificates(signed.certificate()).getFirst(), caCert});
        return chained;
    }

    private static List<? extends Certificate> certificates(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
    }

    private static void keytool(String... command) throws IOException, InterruptedException {
        var all = new ArrayList<>(List.of(command));
        if (all.contains("-genkeypair")) all.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2"));
        if (all.contains("-gencert")) all.addAll(List.of("-validity", "2"));
        all.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt"));
        var process = new ProcessBuilder(all).redirectErrorStream(true).start();
        var output = new String(process.getInputStream().readAllBytes(), US_ASCII);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
            throw new IllegalStateException("keytool " + command[1] + " failed: " + output);
    }
}
