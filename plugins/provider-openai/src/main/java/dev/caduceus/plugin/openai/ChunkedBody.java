package dev.caduceus.plugin.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A {@code Transfer-Encoding: chunked} body (RFC 9112 §7.1): chunk extensions are ignored, trailer
 * fields are read and dropped (nothing here needs them).
 */
final class ChunkedBody extends BodyDecoder {
    private static final int MAX_SIZE_LINE = 4096;
    private static final int MAX_TRAILERS = 64 * 1024;

    private long chunkLeft;
    private boolean first = true;
    private boolean done;

    ChunkedBody(InputStream in) {
        super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        if (chunkLeft == 0 && !nextChunk()) return -1;
        int n = in.read(b, off, (int) Math.min(len, chunkLeft));
        if (n < 0) throw new EOFException("Connection closed in the middle of a chunk");
        chunkLeft -= n;
        return n;
    }

    /** Moves to the next chunk's data; {@code false} at the last chunk (its trailers consumed). */
    private boolean nextChunk() throws IOException {
        if (done) return false;
        if (!first && !HttpLines.read(in, 2, "chunk end").isEmpty())
            throw new IOException("Malformed chunked body: data longer than its chunk size");
        first = false;
        var line = HttpLines.read(in, MAX_SIZE_LINE, "chunk size");
        int semicolon = line.indexOf(';'); // a chunk extension follows; nothing here needs one
        var hex = (semicolon >= 0 ? line.substring(0, semicolon) : line).strip();
        if (hex.isEmpty() || hex.length() > 15)
            throw new IOException("Malformed chunk size: " + ResponseHead.printable(line));
        try {
            chunkLeft = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new IOException("Malformed chunk size: " + ResponseHead.printable(line), e);
        }
        if (chunkLeft < 0) throw new IOException("Malformed chunk size: " + ResponseHead.printable(line));
        if (chunkLeft > 0) return true;
        skipTrailers();
        done = true;
        return false;
    }

    private void skipTrailers() throws IOException {
        int total = 0;
        for (String line; !(line = HttpLines.read(in, ResponseHead.MAX_LINE, "trailer field")).isEmpty(); )
            if ((total += line.length()) > MAX_TRAILERS) throw new IOException("HTTP trailers too large");
    }

    @Override
    boolean atEnd() {
        return done;
    }
}
