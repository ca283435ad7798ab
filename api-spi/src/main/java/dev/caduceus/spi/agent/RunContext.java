package dev.caduceus.spi.agent;

import dev.caduceus.spi.Cancellation;
import java.util.List;

/**
 * What an {@link AgentRuntime} gets for one run.
 *
 * <p>Threading: {@link #emit} must be called from the run's own thread (it assigns sequence numbers
 * without coordination); the other methods are thread-safe. Lifecycle: valid until
 * {@link AgentRuntime#execute} returns.
 */
public interface RunContext {

    /** The run id. */
    String runId();

    /** Appends a non-terminal event to the journal. Terminal events are written by the host. */
    void emit(RunEvent event);

    /** Fires on stop, client disconnect (where the route says so) or shutdown. */
    Cancellation cancellation();

    /** Steering texts queued since the last call, oldest first; empty when none. */
    List<String> drainSteering();
}
