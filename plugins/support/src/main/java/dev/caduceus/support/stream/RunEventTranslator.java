package dev.caduceus.support.stream;

import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;

/**
 * Turns journal entries into an endpoint family's wire frames. Called by {@link EventPump#pump} on
 * the stream's thread, once per entry, in order.
 */
@FunctionalInterface
public interface RunEventTranslator {
    void translate(JournalEntry entry, EventStream out) throws ClientGoneException;
}
