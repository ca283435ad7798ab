package dev.caduceus.spi.model;

import dev.caduceus.spi.tool.Cancellation;
import java.util.function.Consumer;

/**
 * Plain calls to the deployment's upstream model, for an endpoint that must answer a request with
 * one model call and nothing of an agent turn: no tools, no system prompt, no transcript, no run
 * (so no journal and no concurrency slot). The chat endpoint answers front-ends' housekeeping
 * requests (titles, tags, follow-ups) this way. Reached through
 * {@link dev.caduceus.spi.PlatformContext#models()}.
 *
 * <p>Threading: thread-safe. {@link #stream} blocks on the caller's thread and delivers that call's
 * events in order on the same thread, ending with {@link ModelEvent.Finish}; when {@code cancel}
 * fires it returns promptly. Lifecycle: usable after boot.
 */
public interface Models {

    /**
     * Whether this host makes plain calls itself: a model provider is selected and {@code model.*}
     * is configured. False in proxy mode, where the remote server runs every turn.
     */
    boolean available();

    /** The deployment's upstream model ({@code model.name}), for calls that name no other; null when none is configured. */
    String defaultModel();

    /**
     * The names of the deployment's model routes ({@code model.routes}), in configuration order: a request whose
     * {@code model} is one of them is that route's (pass the name on as the run's model); empty when none is configured.
     */
    default java.util.List<String> routes() { return java.util.List.of(); }

    /**
     * One upstream call as {@code request} says (no retry). {@code request.stream()} is honoured only
     * when {@code model.stream} allows streaming. Error messages are redacted of known secrets.
     *
     * @throws IllegalStateException when not {@link #available()}
     */
    void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException;
}
