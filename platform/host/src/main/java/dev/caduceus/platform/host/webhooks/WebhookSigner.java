package dev.caduceus.platform.host.webhooks;

import dev.caduceus.platform.host.config.Secret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a webhook the Standard Webhooks way: HMAC-SHA256 over {@code id.timestamp.body} with each secret
 * (the bytes whose base64 follows {@code whsec_}), base64, each prefixed {@code v1,} and the signatures
 * joined by spaces, so that a receiver holding any one of the secrets verifies it while they are rotated.
 * Immutable and thread-safe.
 */
public final class WebhookSigner {
    private static final String ALGORITHM = "HmacSHA256";
    private final List<SecretKeySpec> keys;

    private WebhookSigner(List<SecretKeySpec> keys) {
        if (keys.isEmpty()) throw new IllegalArgumentException("a signer needs at least one secret");
        this.keys = List.copyOf(keys);
    }

    /** A signer for {@code secrets}, each the base64 text after {@code whsec_} (as the configuration holds them). */
    public static WebhookSigner of(List<Secret> secrets) {
        var keys = new ArrayList<SecretKeySpec>();
        for (var secret : secrets) keys.add(new SecretKeySpec(Base64.getDecoder().decode(secret.reveal()), ALGORITHM));
        return new WebhookSigner(keys);
    }

    /**
     * The {@code X-Hermes-Signature-256} header's value for {@code body}, as Hermes' outbound hooks sign:
     * {@code sha256=} and the hex HMAC-SHA256 of the body alone, with the first secret.
     */
    public String hermes(byte[] body) {
        try {
            var mac = Mac.getInstance(ALGORITHM);
            mac.init(keys.getFirst());
            return "sha256=" + java.util.HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** The {@code webhook-signature} header's value for message {@code id} sent at {@code timestamp} (Unix seconds). */
    public String signature(String id, long timestamp, byte[] body) {
        var prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        var out = new StringBuilder();
        for (var key : keys) {
            try {
                var mac = Mac.getInstance(ALGORITHM);
                mac.init(key);
                mac.update(prefix);
                var digest = mac.doFinal(body);
                if (!out.isEmpty()) out.append(' ');
                out.append("v1,").append(Base64.getEncoder().encodeToString(digest));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is unavailable", e);
            }
        }
        return out.toString();
    }
}
