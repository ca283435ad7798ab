package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Encodes upstream request bodies into a few reused buffers, which the request sends from as they are.
 * {@code writeValueAsBytes} grew a chain of new blocks to the body's size (the tools' schemas and the
 * system prompt: ~10 KB) and then copied them into its result: twice the body in garbage per model
 * call, and a copy of it when the body went into an array of its own. A buffer is held for its whole
 * call (a server may answer before it read the body), so as many are in use as calls are; of those, up to
 * {@value #POOLED} idle ones of at most {@value #MAX_KEPT} bytes are kept (at most 4 MiB, typically 1 MiB)
 * and a larger body's buffer is dropped after its call, as the array of each call was before. Thread-safe.
 */
final class RequestBodies {
    static final int POOLED = 64;
    static final int MAX_KEPT = 64 * 1024;
    private final ArrayBlockingQueue<Buffer> pool = new ArrayBlockingQueue<>(POOLED);

    /** A body encoded into a pooled buffer, which {@link #close} gives back: only once its exchange ended. */
    final class Encoded implements AutoCloseable {
        private final Buffer buffer;
        private final ByteBuffer bytes;
        private boolean closed;

        private Encoded(Buffer buffer) {
            this.buffer = buffer;
            this.bytes = ByteBuffer.wrap(buffer.bytes, 0, buffer.count);
        }

        /** The UTF-8 JSON bytes, valid until {@link #close}. */
        ByteBuffer bytes() {
            return bytes;
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            giveBack(buffer);
        }
    }

    /** What writes one body: its whole JSON value, to the generator it is given. */
    @FunctionalInterface
    interface Body {
        void writeTo(JsonGenerator g) throws IOException;
    }

    /** {@code body} as UTF-8 JSON; the caller closes the result once the request that sends it ended. */
    Encoded write(ObjectMapper json, Body body) throws JsonProcessingException {
        var buffer = pool.poll();
        if (buffer == null) buffer = new Buffer();
        boolean written = false;
        try {
            try (var g = json.createGenerator(buffer)) {
                body.writeTo(g);
            }
            written = true;
            return new Encoded(buffer);
        } catch (JsonProcessingException e) {
            throw e; // the body's own error (an IOException too): the caller's to report
        } catch (IOException e) {
            throw new IllegalStateException("an in-memory write failed", e); // Buffer never throws
        } finally {
            if (!written) giveBack(buffer);
        }
    }

    private void giveBack(Buffer buffer) {
        buffer.count = 0;
        if (buffer.bytes.length <= MAX_KEPT) pool.offer(buffer);
    }

    /** A growable byte array that Jackson writes into; one writer holds it at a time. */
    private static final class Buffer extends OutputStream {
        private byte[] bytes = new byte[8 * 1024];
        private int count;

        @Override
        public void write(int b) {
            ensure(1);
            bytes[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, bytes, count, len);
            count += len;
        }

        private void ensure(int more) {
            if (bytes.length - count < more) bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, count + more));
        }
    }
}
