package dev.caduceus.plugin.openai;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed status line and header block.
 *
 * @param minorVersion the {@code x} of {@code HTTP/1.x}
 * @param status       the status code
 * @param headers      the header fields
 */
record ResponseHead(int minorVersion, int status, ResponseHeaders headers) {
    /** Caps that keep a broken or hostile upstream from making us buffer without bound. */
    static final int MAX_LINE = 16 * 1024;
    static final int MAX_HEAD = 64 * 1024;
    static final int MAX_FIELDS = 256;

    /** Whether the connection may carry another request after this response's body. */
    boolean keepAlive() {
        return minorVersion >= 1 && !headers.hasToken("Connection", "close");
    }

    /**
     * Reads one head; {@code statusLine} was already read (the caller reads it separately, since
     * whether any of it arrived decides if a stale pooled connection may be retried).
     */
    static ResponseHead read(String statusLine, InputStream in) throws IOException {
        var status = parseStatusLine(statusLine);
        Map<String, List<String>> fields = new LinkedHashMap<>();
        String lastName = null;
        int total = statusLine.length();
        int count = 0;
        for (String line; !(line = HttpLines.read(in, MAX_LINE, "header field")).isEmpty(); ) {
            total += line.length() + 2;
            if (total > MAX_HEAD || ++count > MAX_FIELDS)
                throw new IOException("HTTP response head larger than " + MAX_HEAD + " bytes or " + MAX_FIELDS
                        + " fields");
            if ((line.charAt(0) == ' ' || line.charAt(0) == '\t') && lastName != null) {
                // obsolete line folding (RFC 9112 §5.2): the line continues the previous value
                var values = fields.get(lastName);
                values.set(values.size() - 1, values.getLast() + " " + line.strip());
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) throw new IOException("Malformed HTTP header field: " + printable(line));
            lastName = line.substring(0, colon).strip();
            fields.computeIfAbsent(lastName, n -> new ArrayList<>()).add(line.substring(colon + 1).strip());
        }
        return new ResponseHead(status[0], status[1], new ResponseHeaders(fields));
    }

    /** {@code HTTP/1.x NNN [reason]} → {x, NNN}. */
    private static int[] parseStatusLine(String line) throws IOException {
        try {
            if (line.length() >= 12 && line.startsWith("HTTP/1.") && line.charAt(8) == ' '
                    && (line.length() == 12 || line.charAt(12) == ' ')) {
                int minor = Character.digit(line.charAt(7), 10);
                int status = Integer.parseInt(line.substring(9, 12));
                if (minor >= 0 && status >= 100 && status <= 999) return new int[] {minor, status};
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw new IOException("Malformed HTTP status line from upstream: " + printable(line));
    }

    /** The line cut and stripped of control characters, for an error message. */
    static String printable(String line) {
        var cut = line.length() > 100 ? line.substring(0, 100) + "…" : line;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
