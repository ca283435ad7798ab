package dev.caduceus.platform.host.outbound;

import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * A {@code Content-Encoding: deflate} body, inflated as it is read. RFC 9110 says deflate means the
 * zlib format, but some servers send raw deflate data, so the first two bytes decide, as browsers and
 * curl do: a valid zlib header (compression method 8, header checksum a multiple of 31) is zlib,
 * anything else raw. An empty body stays empty. Nothing is read before the first {@code read}, so
 * constructing one never blocks. Not thread-safe: one reader thread; {@link #close()} frees the
 * inflater's native memory and closes the raw stream.
 */
final class DeflateBody extends InputStream {
    private final PushbackInputStream raw;
    private Inflater inflater;
    private InputStream inflated;

    DeflateBody(InputStream raw) {
        this.raw = new PushbackInputStream(raw, 2);
    }

    @Override
    public int read() throws IOException {
        var one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (inflated == null) inflated = open();
        return inflated.read(b, off, len);
    }

    private InputStream open() throws IOException {
        var head = raw.readNBytes(2);
        if (head.length == 0) return InputStream.nullInputStream();
        raw.unread(head);
        inflater = new Inflater(!zlib(head));
        return new InflaterInputStream(raw, inflater);
    }

    /** Whether {@code head} starts a zlib stream (RFC 1950: CM 8, window at most 32 KiB, FCHECK). */
    static boolean zlib(byte[] head) {
        if (head.length < 2) return false;
        int cmf = head[0] & 0xff, flg = head[1] & 0xff;
        return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
    }

    @Override
    public void close() throws IOException {
        if (inflater != null) inflater.end();
        raw.close();
    }
}
