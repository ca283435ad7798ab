package dev.caduceus.platform.runtime.agent;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.net.URLEncoder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The literal strings a secret can show up as in command output: the clear text, hex (lower and
 * upper case), base64 (standard and URL-safe alphabets) at each of the three byte alignments it can
 * have inside a longer encoded stream, percent-encoding, JSON string escaping, each of these
 * reversed, and all of that again for the reversed secret ({@code rev | base64}). Line breaks (the 76-column wrapping of {@code base64}) are the matcher's business, not
 * this class's. Stateless.
 */
final class SecretForms {
    private SecretForms() {}

    /** Every form of {@code secret}, the clear text first. */
    static Set<String> of(String secret) {
        var all = encodings(secret);
        all.addAll(encodings(new StringBuilder(secret).reverse().toString()));
        return all;
    }

    /** The encodings of {@code secret} and their reversals. */
    private static Set<String> encodings(String secret) {
        var bytes = secret.getBytes(UTF_8);
        var forms = new LinkedHashSet<String>();
        forms.add(secret);
        forms.add(HexFormat.of().formatHex(bytes));
        forms.add(HexFormat.of().withUpperCase().formatHex(bytes));
        var standalone = Base64.getEncoder().encodeToString(bytes);
        forms.add(standalone);
        forms.add(urlSafe(standalone));
        for (int offset = 0; offset < 3; offset++) {
            var core = base64Core(bytes, offset);
            forms.add(core);
            forms.add(urlSafe(core));
        }
        forms.addAll(percentEncoded(secret, bytes));
        var json = new String(JsonStringEncoder.getInstance().quoteAsString(secret));
        forms.add(json);
        forms.add(json.replace("/", "\\/"));
        var all = new LinkedHashSet<String>(forms);
        for (var form : forms) all.add(new StringBuilder(form).reverse().toString());
        return all;
    }

    /**
     * The characters of the base64 encoding of a stream that depend on {@code secret} alone, when
     * the secret starts {@code offset} (0, 1 or 2) bytes after a 3-byte group boundary: the
     * encoding of {@code offset} filler bytes plus the secret, without the characters that mix in
     * filler bits (the first 0, 2 or 3) or the bits of whatever follows (the last one when the end
     * is not on a group boundary).
     */
    static String base64Core(byte[] secret, int offset) {
        var stream = new byte[offset + secret.length];
        System.arraycopy(secret, 0, stream, offset, secret.length);
        var encoded = Base64.getEncoder().withoutPadding().encodeToString(stream);
        int skip = switch (offset) {
            case 0 -> 0;
            case 1 -> 2;
            case 2 -> 3;
            default -> throw new IllegalArgumentException("offset " + offset);
        };
        int drop = stream.length % 3 == 0 ? 0 : 1;
        return encoded.substring(skip, encoded.length() - drop);
    }

    private static String urlSafe(String base64) {
        return base64.replace('+', '-').replace('/', '_');
    }

    /** Form encoding ({@code +} for space), RFC 3986 ({@code %20}), every byte escaped; each in both hex cases. */
    private static Set<String> percentEncoded(String secret, byte[] bytes) {
        var forms = new ArrayList<String>();
        var form = URLEncoder.encode(secret, UTF_8);
        forms.add(form);
        forms.add(form.replace("+", "%20"));
        var every = new StringBuilder();
        for (byte b : bytes) every.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
        forms.add(every.toString());
        var result = new LinkedHashSet<String>();
        for (var f : forms) {
            result.add(f);
            result.add(lowerEscapes(f));
        }
        return result;
    }

    /** The hex digits of every {@code %XX} escape in lower case. */
    private static String lowerEscapes(String s) {
        var chars = s.toCharArray();
        for (int i = 0; i + 2 < chars.length; i++)
            if (chars[i] == '%') {
                chars[i + 1] = Character.toLowerCase(chars[i + 1]);
                chars[i + 2] = Character.toLowerCase(chars[i + 2]);
                i += 2;
            }
        return new String(chars);
    }
}
