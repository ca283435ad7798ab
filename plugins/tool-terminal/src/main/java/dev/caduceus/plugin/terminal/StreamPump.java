package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Copies one child pipe into a {@link CappedOutput} on its own virtual thread, decoding UTF-8 with
 * replacement (a sequence split across reads is completed by the next read). It keeps reading past
 * the cap so the child never blocks on a full pipe. Ends at end of stream or on a read error.
 */
final class StreamPump {
    private StreamPump() {}

    /** Starts the pump; the returned thread ends when the stream does. */
    static Thread start(String name, InputStream in, CappedOutput sink) {
        return Thread.ofVirtual().name(name).start(() -> pump(in, sink));
    }

    private static void pump(InputStream in, CappedOutput sink) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        var bytes = ByteBuffer.allocate(16 * 1024);
        var chars = CharBuffer.allocate(16 * 1024);
        try (in) {
            int n;
            while ((n = in.read(bytes.array(), bytes.position(), bytes.remaining())) >= 0) {
                bytes.position(bytes.position() + n);
                bytes.flip();
                decoder.decode(bytes, chars, false);
                flush(chars, sink);
                bytes.compact();
            }
            bytes.flip();
            decoder.decode(bytes, chars, true);
            decoder.flush(chars);
            flush(chars, sink);
        } catch (IOException e) {
            // The pipe was closed under us (process killed, stream closed at shutdown): keep what we have.
        }
    }

    private static void flush(CharBuffer chars, CappedOutput sink) {
        chars.flip();
        if (chars.hasRemaining()) sink.append(chars);
        chars.clear();
    }
}
