package dev.caduceus.support.files;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Optional;

/**
 * A client's file name made safe to store and to place in a workspace: the last path segment only (either
 * slash), NFC, no control or format characters, no leading dots or spaces, at most {@link #MAX_BYTES} bytes
 * of UTF-8 (cut at a character, the extension kept). Empty when nothing usable is left. Stateless.
 */
public final class FileNames {
    public static final int MAX_BYTES = 255;

    private FileNames() {}

    public static Optional<String> sanitise(String raw) {
        if (raw == null) return Optional.empty();
        var name = Normalizer.normalize(raw, Normalizer.Form.NFC);
        int cut = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = name.substring(cut + 1);
        var clean = new StringBuilder();
        name.codePoints().forEach(c -> {
            int type = Character.getType(c);
            if (type == Character.CONTROL || type == Character.FORMAT || type == Character.SURROGATE
                    || type == Character.UNASSIGNED || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) return;
            clean.appendCodePoint(c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' || c == '|' ? '_' : c);
        });
        var out = clean.toString().strip();
        while (out.startsWith(".")) out = out.substring(1).strip();
        if (out.isEmpty()) return Optional.empty();
        return Optional.of(shorten(out));
    }

    /** {@code name} cut to {@link #MAX_BYTES} bytes of UTF-8, keeping a short extension. */
    private static String shorten(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES) return name;
        int dot = name.lastIndexOf('.');
        var extension = dot > 0 && name.length() - dot <= 16 ? name.substring(dot) : "";
        var stem = extension.isEmpty() ? name : name.substring(0, dot);
        int budget = MAX_BYTES - extension.getBytes(StandardCharsets.UTF_8).length;
        var out = new StringBuilder();
        int used = 0;
        for (int i = 0; i < stem.length(); ) {
            int c = stem.codePointAt(i);
            int size = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8).length;
            if (used + size > budget) break;
            out.appendCodePoint(c);
            used += size;
            i += Character.charCount(c);
        }
        return out + extension;
    }
}
