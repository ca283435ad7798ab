package dev.caduceus.spi.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Writes server-sent events to one client.
 *
 * <p>Threading: confined to the thread that opened it; never share it between threads. Each method
 * blocks until its bytes are written and flushed. Lifecycle: ends with {@link #close()} or when a
 * write fails with {@link ClientGoneException}; after that every call throws
 * {@link ClientGoneException}.
 */
public interface EventStream extends AutoCloseable {

    /** Writes one frame: optional {@code id:}, optional {@code event:}, one compact {@code data:} line. */
    void event(Long id, String name, JsonNode data) throws ClientGoneException;

    /** Writes an unnamed frame without an id. */
    default void event(JsonNode data) throws ClientGoneException {
        event(null, null, data);
    }

    /** Writes {@code data: <raw>} verbatim (for {@code [DONE]}); {@code raw} must not contain newlines. */
    void data(String raw) throws ClientGoneException;

    /** Writes a comment line {@code : text}; {@code text} must not contain newlines. */
    void comment(String text) throws ClientGoneException;

    /**
     * Runs {@code frames} with this stream's writes held back, then writes every frame it produced
     * in one go (a run that produces faster than the client reads costs one write, not one per
     * token). Frames are written even when {@code frames} throws. Not reentrant.
     */
    void batch(Frames frames) throws ClientGoneException, InterruptedException;

    /** Ends the response. Idempotent. */
    @Override
    void close();

    /** Frames written inside {@link #batch}. */
    @FunctionalInterface
    interface Frames {
        void write() throws ClientGoneException, InterruptedException;
    }
}
