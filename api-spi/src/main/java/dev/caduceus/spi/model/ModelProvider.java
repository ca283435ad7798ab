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

    /**
     * This provider bound to another upstream of its kind: one deployment of a model route
     * ({@code model.routes}), with its own base URL, key and timeout, sharing everything else
     * (the host's client, the call options of {@code model.*}). The host calls it once per
     * deployment at boot. A provider with no other upstream to offer keeps this default.
     *
     * @throws UnsupportedOperationException when this provider cannot be bound elsewhere
     */
    default ModelProvider at(Endpoint endpoint) {
        throw new UnsupportedOperationException("model provider '" + id() + "' serves only its own upstream");
    }

    /**
     * Where one deployment's calls go. Immutable.
     *
     * @param baseUrl the upstream's base URL (for OpenAI-compatible ones, including {@code /v1})
     * @param apiKey  its bearer key; null for none
     * @param model   the upstream's model id, for a request that names none
     * @param timeout one call's limit, body included; null keeps the provider's
     */
    record Endpoint(String baseUrl, String apiKey, String model, java.time.Duration timeout) {
        public Endpoint {
            java.util.Objects.requireNonNull(baseUrl, "baseUrl");
            java.util.Objects.requireNonNull(model, "model");
        }

        @Override
        public String toString() {
            return "Endpoint[baseUrl=" + baseUrl + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "<redacted>") + ", timeout="
                    + timeout + "]";
        }
    }
}
