package dev.caduceus.spi.agent;

import dev.caduceus.spi.message.Message;
import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.model.ModelOptions;
import java.util.List;
import java.util.Map;

/**
 * Everything needed to execute one agent turn, built by an endpoint plugin from its wire format.
 * Immutable.
 *
 * @param model         the upstream model id to use, or {@code null} for the configured one
 * @param messages      history plus the turn input, oldest first (no core system prompt: the runtime adds it)
 * @param instructions  the caller's system text, layered on top of the core prompt; may be null
 * @param toolsets      toolsets enabled for this turn; empty means the deployment's {@code agent.toolsets}
 * @param sessionId     transcript session id; may be null
 * @param sessionKey    long-term memory scope key from {@code X-Hermes-Session-Key}; may be null
 * @param options       model options passed upstream
 * @param maxIterations iteration cap for this turn, or 0 for {@code agent.max_iterations}
 * @param metadata      free-form labels passed along with the run ({@code source}, {@code model}, …); not stored
 * @param stream        whether someone reads the answer while it is written (a streaming client, a
 *                      run's event stream); {@code false} lets the runtime ask the model for whole
 *                      answers, which costs the model, the network and this host less than a stream
 * @param owner         the name of the key the run belongs to ({@link dev.caduceus.spi.http.Caller#name()});
 *                      its session transcript and memory are that key's own, and so is the run record
 * @param origin        what started the run on the owner's behalf, as {@code <kind>:<id>} (a scheduled
 *                      job's runs: {@code job:<id>}), or null for a caller's own run. Stored with the
 *                      run ({@link RunRecord#origin()}, {@link RunQuery#origin()}); runs of one origin
 *                      share its memory scope, and count as background runs in {@code /health/detailed}
 */
public record RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                         String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                         Map<String, String> metadata, boolean stream, String owner, String origin) {
    public RunRequest {
        requireNonNull(owner, "owner");
        messages = List.copyOf(messages);
        toolsets = List.copyOf(toolsets);
        requireNonNull(options, "options");
        metadata = Map.copyOf(metadata);
        if (maxIterations < 0) throw new IllegalArgumentException("maxIterations must be >= 0");
        if (origin != null && origin.isBlank()) throw new IllegalArgumentException("origin must not be blank");
    }

    /** A caller's own run (no {@code origin}). */
    public RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                      String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                      Map<String, String> metadata, boolean stream, String owner) {
        this(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations, metadata, stream,
                owner, null);
    }

    /** A request of the admin key. */
    public RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                      String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                      Map<String, String> metadata, boolean stream) {
        this(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations, metadata, stream,
                dev.caduceus.spi.http.Caller.ADMIN);
    }

    /** A request of the admin key whose answer is read while it is written ({@code stream} true). */
    public RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                      String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                      Map<String, String> metadata) {
        this(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations, metadata, true);
    }

    /** This request on behalf of key {@code name}. */
    public RunRequest ownedBy(String name) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, name, origin);
    }

    /** This request started on the owner's behalf by {@code origin} ({@code <kind>:<id>}, e.g. {@code job:<id>}). */
    public RunRequest from(String origin) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, owner, origin);
    }
}
