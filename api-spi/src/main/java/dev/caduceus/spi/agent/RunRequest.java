package dev.caduceus.spi.agent;

import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.spi.model.ModelRequest.ToolChoice;
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
 * @param clientTools   the caller's own functions and its {@code tool_choice}; {@link ClientTools#NONE} when none
 */
public record RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                         String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                         Map<String, String> metadata, boolean stream, String owner, String origin,
                         ClientTools clientTools) {
    public RunRequest {
        requireNonNull(owner, "owner");
        messages = List.copyOf(messages);
        toolsets = List.copyOf(toolsets);
        requireNonNull(options, "options");
        metadata = Map.copyOf(metadata);
        if (maxIterations < 0) throw new IllegalArgumentException("maxIterations must be >= 0");
        if (origin != null && origin.isBlank()) throw new IllegalArgumentException("origin must not be blank");
        requireNonNull(clientTools, "clientTools");
    }

    /** A request without client tools. */
    public RunRequest(String model, List<Message> messages, String instructions, List<String> toolsets,
                      String sessionId, String sessionKey, ModelOptions options, int maxIterations,
                      Map<String, String> metadata, boolean stream, String owner, String origin) {
        this(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations, metadata, stream,
                owner, origin, ClientTools.NONE);
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
                metadata, stream, name, origin, clientTools);
    }

    /** This request started on the owner's behalf by {@code origin} ({@code <kind>:<id>}, e.g. {@code job:<id>}). */
    public RunRequest from(String origin) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, owner, origin, clientTools);
    }

    /** This request with {@code toolsets} enabled instead of its own. */
    public RunRequest withToolsets(List<String> toolsets) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, owner, origin, clientTools);
    }

    /** This request started on the owner's behalf by {@code origin} ({@code <kind>:<id>}). */
    public RunRequest withOrigin(String origin) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, owner, origin, clientTools);
    }

    /** This request with the caller's own functions. */
    public RunRequest withClientTools(ClientTools tools) {
        return new RunRequest(model, messages, instructions, toolsets, sessionId, sessionKey, options, maxIterations,
                metadata, stream, owner, origin, tools);
    }

    /**
     * The caller's own functions for one turn (an OpenAI request's {@code tools} of type {@code function}) and how
     * the model may use tools. The host offers them to the model next to its own tools but never executes them:
     * when the model calls one, the turn ends with {@link StopReason#TOOL_CALLS} and a {@link RunEvent.ToolCallsRequired}
     * naming the calls, and the caller answers them in its next request. Immutable.
     *
     * @param tools             the functions, as specs of toolset {@value #TOOLSET}; names never equal a host tool's
     * @param choice            the caller's {@code tool_choice}: {@code none} holds for every model call of the turn,
     *                          {@code required} and a named tool for its first call only (then {@code auto}, or the agent
     *                          could never stop calling tools)
     * @param parallelToolCalls the caller's {@code parallel_tool_calls}, or null for the model's default
     */
    public record ClientTools(List<ToolSpec> tools, ToolChoice choice, Boolean parallelToolCalls) {
        /** The toolset of every client tool's spec. */
        public static final String TOOLSET = "client";
        /** No client tools, {@code auto}, the model's default parallelism. */
        public static final ClientTools NONE = new ClientTools(List.of(), ToolChoice.AUTO, null);

        public ClientTools {
            tools = List.copyOf(tools);
            requireNonNull(choice, "choice");
        }

        /** Whether {@code name} is one of the caller's functions. */
        public boolean has(String name) {
            for (var tool : tools) if (tool.name().equals(name)) return true;
            return false;
        }

        /** Whether the caller changed nothing: no functions, {@code auto}, default parallelism. */
        public boolean isEmpty() {
            return tools.isEmpty() && choice instanceof ToolChoice.Auto && parallelToolCalls == null;
        }
    }
}
