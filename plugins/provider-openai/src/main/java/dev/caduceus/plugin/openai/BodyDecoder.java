package dev.caduceus.plugin.openai;

import java.io.InputStream;

/**
 * A response body framed on the connection's stream: it returns -1 at the body's end, and throws
 * {@link java.io.EOFException} when the connection ends before the framing says the body does.
 */
abstract class BodyDecoder extends InputStream {
    /** Whether the whole body, framing included, has been consumed. */
    abstract boolean atEnd();

    /** Whether the connection can carry another exchange once {@link #atEnd()} (not for close-delimited bodies). */
    boolean delimited() {
        return true;
    }
}
