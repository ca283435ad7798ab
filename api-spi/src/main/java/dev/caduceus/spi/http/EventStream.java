package dev.caduceus.spi.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.agent.RunEventTranslator;
import dev.caduceus.spi.agent.RunSubscription;

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
     * The one streaming loop: reads committed run events from {@code subscription}, hands each to
     * {@code translator}, sends {@code : keepalive} comments while idle, and returns when the run's
     * terminal event has been translated ({@link PumpResult#FINISHED}) or the client is gone
     * ({@link PumpResult#CLIENT_GONE}). The caller decides what a disconnect means.
     */
    PumpResult pump(RunSubscription subscription, RunEventTranslator translator) throws InterruptedException;

    /** Ends the response. Idempotent. */
    @Override
    void close();

    /** How {@link #pump} ended. */
    enum PumpResult { FINISHED, CLIENT_GONE }
}
