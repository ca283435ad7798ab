package dev.caduceus.plugin.openai;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** A body of {@code Content-Length} bytes. */
final class FixedLengthBody extends BodyDecoder {
    private long remaining;

    FixedLengthBody(InputStream in, long length) {
        super(in);
        this.remaining = length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (remaining == 0) return -1;
        if (len == 0) return 0;
        int n = in.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) throw new EOFException("Connection closed with " + remaining + " bytes of the body missing");
        remaining -= n;
        return n;
    }

    @Override
    boolean atEnd() {
        return remaining == 0;
    }
}
