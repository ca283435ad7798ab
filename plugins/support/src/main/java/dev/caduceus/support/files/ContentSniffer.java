package dev.caduceus.support.files;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What a file is, from its first bytes (never from the name or the client's {@code Content-Type}): a few image
 * formats, PDF, zip, gzip and tar by their magic numbers, UTF-8 text without NUL bytes, else
 * {@code application/octet-stream}. What is sniffed only labels the file and picks the answer's
 * {@code Content-Type}; nothing is executed or rendered on its word. Stateless.
 */
public final class ContentSniffer {
    /** How many leading bytes it looks at. */
    public static final int HEAD = 4096;
    public static final String BINARY = "application/octet-stream";
    public static final String TEXT = "text/plain; charset=utf-8";

    private ContentSniffer() {}

    /** The type of a file that starts with {@code head[0..length)} ({@code complete}: that is the whole file). */
    public static String sniff(byte[] head, int length, boolean complete) {
        var b = Arrays.copyOf(head, length);
        if (starts(b, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) return "image/png";
        if (starts(b, 0xFF, 0xD8, 0xFF)) return "image/jpeg";
        if (starts(b, 'G', 'I', 'F', '8')) return "image/gif";
        if (starts(b, 'R', 'I', 'F', 'F') && b.length >= 12 && b[8] == 'W' && b[9] == 'E' && b[10] == 'B' && b[11] == 'P')
            return "image/webp";
        if (starts(b, '%', 'P', 'D', 'F', '-')) return "application/pdf";
        if (starts(b, 'P', 'K', 0x03, 0x04) || starts(b, 'P', 'K', 0x05, 0x06)) return "application/zip";
        if (starts(b, 0x1F, 0x8B)) return "application/gzip";
        if (Archives.isTar(b)) return Archives.TAR;
        return text(b, complete) ? TEXT : BINARY;
    }

    private static boolean starts(byte[] b, int... magic) {
        if (b.length < magic.length) return false;
        for (int i = 0; i < magic.length; i++) if ((b[i] & 0xFF) != magic[i]) return false;
        return true;
    }

    /** UTF-8 without NUL; a character cut at the end of an incomplete head is allowed. */
    private static boolean text(byte[] b, boolean complete) {
        for (byte x : b) if (x == 0) return false;
        int end = b.length;
        if (!complete) {
            // drop a trailing partial UTF-8 sequence (at most 3 bytes)
            int back = 0;
            while (back < 3 && end - back - 1 >= 0 && (b[end - back - 1] & 0xC0) == 0x80) back++;
            if (end - back - 1 >= 0 && (b[end - back - 1] & 0xC0) == 0xC0) end = end - back - 1;
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, 0, end));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
