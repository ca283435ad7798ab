package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.http.EventStream;

/**
 * The stream of a background response's run: nobody is attached, so frames go only to the journal (which
 * {@link EventWriter} writes before the stream) and are dropped here. Stateless.
 */
enum DetachedStream implements EventStream {
    INSTANCE;

    @Override public void event(Long id, String name, JsonNode data) {}

    @Override public void data(String raw) {}

    @Override public void comment(String text) {}

    @Override
    public void batch(Frames frames) throws dev.caduceus.spi.http.ClientGoneException, InterruptedException {
        frames.write();
    }

    @Override public void close() {}
}
