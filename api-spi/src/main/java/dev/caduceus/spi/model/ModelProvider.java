package dev.caduceus.spi.model;

import dev.caduceus.spi.tool.Cancellation;
import java.util.function.Consumer;

/**
 * An upstream model, for example an OpenAI-compatible chat-completions endpoint.
 *
 * <p>Threading: thread-safe; {@link #stream} is called concurrently from run threads. It blocks on
 * the caller's thread and delivers that call's events in order on the same thread, ending with
 * {@link ModelEvent.Finish}. When {@code cancel} fires it closes the upstream request and returns
 * promptly (throwing or finishing).
 */
public interface ModelProvider {

    /** The provider id ({@code openai}). */
    String id();

    /** Whether the provider has what it needs to make calls (for health and the 503 rule). */
    default boolean configured() { return true; }

    void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException;
}
