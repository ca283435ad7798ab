package dev.caduceus.plugin.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the CRLF-terminated lines of HTTP/1.1 framing (status line, header fields, chunk sizes,
 * trailers) byte by byte from a buffered stream. A bare LF is accepted as a line end too, as most
 * clients do. Lines are ISO-8859-1, which maps every byte to one char.
 */
final class HttpLines {
    private HttpLines() {}

    /**
     * One line without its terminator.
     *
     * @param max  the longest line accepted; a longer one is a protocol error, not a reason to buffer
     * @param what names the line in error messages
     * @throws EOFException when the stream ends before the line does
     */
    static String read(InputStream in, int max, String what) throws IOException {
        var line = new StringBuilder(64);
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) throw new EOFException("Connection closed in the middle of the " + what);
            if (line.length() >= max) throw new IOException("HTTP " + what + " longer than " + max + " bytes");
            line.append((char) b);
        }
        int end = line.length();
        if (end > 0 && line.charAt(end - 1) == '\r') line.setLength(end - 1);
        return line.toString();
    }
}
