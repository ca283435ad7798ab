package dev.caduceus.plugin.openai;

import java.io.IOException;
import java.io.InputStream;

/**
 * A body without length or chunking: it ends when the server closes the connection, which therefore
 * can never be reused.
 */
final class CloseDelimitedBody extends BodyDecoder {
    private boolean done;

    CloseDelimitedBody(InputStream in) {
        super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        int n = in.read(b, off, len);
        if (n < 0) done = true;
        return n;
    }

    @Override
    boolean atEnd() {
        return done;
    }

    @Override
    boolean delimited() {
        return false;
    }
}
