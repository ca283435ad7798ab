package dev.caduceus.spi.agent;

import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;

/**
 * Turns journal entries into an endpoint family's wire frames. Called by
 * {@link EventStream#pump} on the stream's thread, once per entry, in order.
 */
@FunctionalInterface
public interface RunEventTranslator {
    void translate(JournalEntry entry, EventStream out) throws ClientGoneException;
}
