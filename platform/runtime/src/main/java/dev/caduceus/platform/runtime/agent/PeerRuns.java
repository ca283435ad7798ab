package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.SteerOutcome;
import java.util.Optional;

/**
 * The runs that other nodes on the same database execute: what {@link RunService} asks when a control
 * request names a run that is not live here. Each method hands the request to the node that owns the
 * run and returns its answer (the same answer that node gives its own clients), or empty when the run is
 * not live on another node (then this node answers as it would alone).
 *
 * <p>Threading: thread-safe; the methods block until the owner answered (seconds at most) and throw
 * {@link dev.caduceus.spi.http.HttpStatusException} 503 when it does not.
 */
public interface PeerRuns {
    Optional<Boolean> stop(String runId);

    Optional<ApprovalAnswer.Outcome> approve(String runId, ApprovalAnswer answer);

    Optional<SteerOutcome> steer(String runId, String text);

    Optional<dev.caduceus.spi.agent.Runs.ToolOutputs> submitToolOutputs(String runId, java.util.Map<String, String> outputs);
}
