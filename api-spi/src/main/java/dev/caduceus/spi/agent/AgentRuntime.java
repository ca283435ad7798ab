package dev.caduceus.spi.agent;

/**
 * How a run is executed: the platform's local agent loop, or a plugin's alternative (for example one that relays each turn to a remote server).
 * One runtime is selected per deployment at boot ({@code agent.runtime}).
 *
 * <p>Threading: {@link #execute} is called on the run's own virtual thread, concurrently for
 * different runs. It blocks until the turn ends, emits non-terminal events through the context, and
 * returns the result, from which the host writes the terminal event. It must return promptly after
 * {@link RunContext#cancellation()} fires.
 */
public interface AgentRuntime {

    /** The runtime id, unique in a deployment; {@code agent.runtime} names it. {@code local} is the host's agent loop. */
    String id();

    /**
     * Whether this runtime's configuration asks for it to run every turn, so that {@code agent.runtime: auto}
     * selects it over the local agent loop (a runtime that relays to a remote server answers whether its
     * remote is set). At most one runtime of a deployment may answer true. Called once, at boot.
     */
    default boolean configured() {
        return false;
    }

    /**
     * Whether a run this runtime executed can continue on another process from what it saved through
     * {@link RunContext#checkpoint} ({@link RunContext#resumption()}). A runtime that answers false has its durable
     * runs interrupted when their server stops, never resumed.
     */
    default boolean resumable() {
        return false;
    }

    /** Executes one agent turn. Exceptions become a failed run with code {@code internal_error}. */
    RunResult execute(RunRequest request, RunContext context) throws Exception;
}
