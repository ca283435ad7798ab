package dev.caduceus.platform.host.outbound;

import dev.caduceus.spi.outbound.OutboundHttp;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Turns {@link OutboundHttp.Tls} (PEM files) into Jetty's client TLS factory: a trust store of the
 * CA file's certificates (replacing the JDK's, as {@code curl --cacert} does) and a key store of the
 * client certificate chain with its PKCS#8 key (RSA, EC or Ed25519). Host names are verified (HTTPS
 * endpoint identification). Stateless; a file that cannot be read fails with a message naming it.
 */
final class TlsMaterial {
    private static final Pattern PRIVATE_KEY =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final char[] NO_PASSWORD = new char[0];

    private TlsMaterial() {}

    static SslContextFactory.Client factory(OutboundHttp.Tls tls) {
        var factory = new SslContextFactory.Client();
        factory.setEndpointIdentificationAlgorithm("HTTPS");
        try {
            if (tls.caFile().isPresent()) {
                var trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (var certificate : certificates(tls.caFile().get()))
                    trust.setCertificateEntry("ca-" + i++, certificate);
                factory.setTrustStore(trust);
            }
            if (tls.certificateFile().isPresent()) {
                var chain = certificates(tls.certificateFile().get());
                var key = privateKey(tls.keyFile().orElseThrow());
                var keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", key, NO_PASSWORD, chain.toArray(Certificate[]::new));
                factory.setKeyStore(keys);
                factory.setKeyStorePassword("");
                factory.setKeyManagerPassword("");
            }
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("TLS settings: " + e.getMessage(), e);
        }
        return factory;
    }

    private static List<? extends Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        var bytes = read(file);
        var all = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes));
        if (all.isEmpty()) throw new IOException(file + " holds no PEM certificate");
        return List.copyOf(all);
    }

    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        var text = new String(read(file), StandardCharsets.US_ASCII);
        var match = PRIVATE_KEY.matcher(text);
        if (!match.find())
            throw new IOException(file + " holds no unencrypted PKCS#8 key (BEGIN PRIVATE KEY); convert it with "
                    + "openssl pkcs8 -topk8 -nocrypt");
        var spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(match.group(1)));
        GeneralSecurityException last = null;
        for (var algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new IOException(file + ": not an RSA, EC or Ed25519 key", last);
    }

    private static byte[] read(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
