package dev.caduceus.plugin.files;

import dev.caduceus.spi.store.PluginDatabase;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Download links that work without the key, for a browser that follows a link in a chat answer:
 * {@code /v1/files/{id}/download?expires=<unix s>&signature=<hex HMAC-SHA256 of "id.expires">}, signed with a random
 * key kept in the database (made at the first start, shared by every node). A link is a capability: whoever has it
 * may download that one file until it expires ({@link #LIFETIME}); a changed id or time breaks the signature.
 * Thread-safe.
 */
public final class SignedLinks {
    public static final Duration LIFETIME = Duration.ofDays(7);
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final Clock clock;

    private SignedLinks(byte[] secret, Clock clock) {
        this.key = new SecretKeySpec(secret, ALGORITHM);
        this.clock = clock;
    }

    /** The deployment's link key: read, or made and stored when there is none yet. */
    public static SignedLinks load(PluginDatabase database, Clock clock) {
        var fresh = new byte[32];
        new SecureRandom().nextBytes(fresh);
        var hex = database.write(sql -> { // two nodes starting at once: the first insert wins, both read it
            sql.update("INSERT INTO file_link_keys (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
                    HexFormat.of().formatHex(fresh));
            return sql.queryOne("SELECT secret FROM file_link_keys WHERE id = 1", r -> r.getString(1)).orElseThrow();
        });
        return new SignedLinks(HexFormat.of().parseHex(hex), clock);
    }

    /** A link to file {@code fileId}, valid for {@link #LIFETIME} (path and query; the caller adds the origin). */
    public String link(String fileId) {
        long expires = clock.instant().plus(LIFETIME).getEpochSecond();
        return "/v1/files/" + fileId + "/download?expires=" + expires + "&signature=" + sign(fileId, expires);
    }

    /** Whether {@code signature} signs file {@code fileId} until {@code expires}, and that time has not passed. */
    public boolean valid(String fileId, String expires, String signature) {
        long until;
        try {
            until = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            return false;
        }
        if (clock.instant().getEpochSecond() >= until || signature == null) return false;
        return MessageDigest.isEqual(sign(fileId, until).getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.US_ASCII));
    }

    private String sign(String fileId, long expires) {
        try {
            var mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return HexFormat.of().formatHex(mac.doFinal((fileId + "." + expires).getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
