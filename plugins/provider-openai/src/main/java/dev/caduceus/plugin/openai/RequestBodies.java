package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Encodes upstream request bodies through a few reused buffers, so that a body costs one array of its
 * exact length. {@code writeValueAsBytes} grew a chain of new blocks to the body's size (the tools'
 * schemas and the system prompt: ~10 KB) and then copied them into the result, twice the body in
 * garbage per model call. At most {@value #POOLED} buffers are kept, each of at most
 * {@value #MAX_KEPT} bytes; a larger body is encoded in a buffer that is then dropped. Thread-safe.
 */
final class RequestBodies {
    static final int POOLED = 16;
    static final int MAX_KEPT = 256 * 1024;
    private final ArrayBlockingQueue<Buffer> pool = new ArrayBlockingQueue<>(POOLED);

    /** {@code body} as UTF-8 JSON bytes. */
    byte[] write(ObjectMapper json, ObjectNode body) throws JsonProcessingException {
        var buffer = pool.poll();
        if (buffer == null) buffer = new Buffer();
        try {
            json.writeValue(buffer, body);
            return buffer.bytes();
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("an in-memory write failed", e); // Buffer never throws
        } finally {
            buffer.count = 0;
            if (buffer.bytes.length <= MAX_KEPT) pool.offer(buffer);
        }
    }

    /** A growable byte array that Jackson writes into; not thread-safe (one writer holds it at a time). */
    private static final class Buffer extends OutputStream {
        private byte[] bytes = new byte[16 * 1024];
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

        byte[] bytes() {
            return Arrays.copyOf(bytes, count);
        }
    }
}
