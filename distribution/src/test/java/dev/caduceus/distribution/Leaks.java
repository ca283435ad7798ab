package dev.caduceus.distribution;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Finds a secret in text the agent saw, also encoded: reversed, hex, base64 (standard and URL-safe,
 * at each of the three byte alignments inside a longer stream), whitespace and line breaks
 * ignored. Independent of the server's redactor on purpose: it is what the test checks against.
 */
final class Leaks {
    private Leaks() {}

    /** The forms of {@code secret} that count as a leak. */
    static List<String> forms(String secret) {
        var forms = new ArrayList<String>();
        forms.add(secret);
        forms.add(new StringBuilder(secret).reverse().toString());
        var bytes = secret.getBytes(StandardCharsets.UTF_8);
        forms.add(HexFormat.of().formatHex(bytes));
        forms.add(HexFormat.of().withUpperCase().formatHex(bytes));
        for (int offset = 0; offset < 3; offset++) {
            var padded = new byte[offset + bytes.length];
            System.arraycopy(bytes, 0, padded, offset, bytes.length);
            var encoded = Base64.getEncoder().withoutPadding().encodeToString(padded);
            // drop the characters that depend on the bytes before or after the secret
            int from = offset == 0 ? 0 : offset + 1;
            int to = encoded.length() - 3;
            if (to > from) {
                var core = encoded.substring(from, to);
                forms.add(core);
                forms.add(core.replace('+', '-').replace('/', '_'));
            }
        }
        return forms;
    }

    /** The first form of {@code secret} found in {@code text}, or null. */
    static String find(String text, String secret) {
        var flat = text.replaceAll("\\s+", "").replace("\\n", "");
        for (var form : forms(secret)) {
            if (text.contains(form) || flat.contains(form) || flat.toLowerCase(Locale.ROOT).contains(form.toLowerCase(Locale.ROOT)) && form.matches("[0-9a-fA-F]+"))
                return form;
        }
        return null;
    }
}
