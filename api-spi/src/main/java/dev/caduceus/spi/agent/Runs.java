package dev.caduceus.spi.agent;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The host's run service: admission (concurrency cap, draining), the run thread, status, journal,
 * stop, approvals and steering. Endpoint plugins reach it through
 * {@link dev.caduceus.spi.PlatformContext#runs()}. One method per operation.
 *
 * <p>Threading: thread-safe. Lifecycle: usable after boot; while shutting down, {@link #start} and
 * {@link #call} throw {@link RunRejectedException} with {@link RunRejectedException.Reason#DRAINING}.
 */
public interface Runs {

    /**
     * Throws if {@link #start} would refuse a run right now (draining, no model, at the concurrency
     * cap). Chat and Responses call it before parsing the body, so that a full server answers 429
     * without reading it; {@code start} checks again.
     */
    void checkAdmission() throws RunRejectedException;

    /**
     * Throws if no run can start at all right now (draining, no model), ignoring the concurrency cap.
     * The runs API calls it before validating the body and leaves the cap to {@link #start}, which
     * checks it after the idempotency-key lookup (a replay is never refused for being at the cap).
     */
    void checkReady() throws RunRejectedException;

    /**
     * Admits a run and starts it on its own thread; returns at once. {@code options} say how it is
     * kept: an ephemeral run lives in memory; for a durable run the status record exists (status
     * {@code queued}) when this returns. With an idempotency key: a key already recorded with the
     * same fingerprint returns the original run ({@code replayed}, nothing started, no admission
     * check); with another fingerprint it throws {@link RunRejectedException.Reason#IDEMPOTENCY_CONFLICT}.
     */
    RunStart start(RunRequest request, RunOptions options) throws RunRejectedException;

    /**
     * Admits an ephemeral run and executes it on the calling thread, for a caller that would only
     * wait for the result (a non-streaming chat or Responses turn): no run thread and no hand-off.
     * {@code started} receives the handle before the run executes, so that another thread can
     * cancel it (the client left); it must not block. Returns the run's result.
     */
    RunResult call(RunRequest request, Consumer<RunHandle> started) throws RunRejectedException, InterruptedException;

    /** A run by id, live or finished (a durable one within retention). */
    Optional<RunHandle> find(String runId);

    /** The status record of a durable run (live or within retention). */
    Optional<RunRecord> record(String runId);

    /** Durable runs matching {@code query}, newest first. */
    RunQuery.Page list(RunQuery query);

    /**
     * Asks a live run to stop: status {@code stopping}, pending approvals resolve as deny, the agent
     * is interrupted; the run ends {@code cancelled}. Idempotent while the run is live; false when it
     * is not live (unknown or finished).
     */
    boolean stop(String runId);

    /** Answers pending approvals of a live run. */
    ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer);

    /** Queues steering text for a running run, applied after its current tool batch; says why when it cannot. */
    SteerOutcome steer(String runId, String text);

    /**
     * Hands the caller's outputs of its own tool calls (call id → output) to a run that waits for them
     * ({@code requires_action}); the run goes on. Every pending call must be answered, and only those.
     */
    default ToolOutputs submitToolOutputs(String runId, java.util.Map<String, String> outputs) {
        throw new UnsupportedOperationException("submitToolOutputs is not supported by this host");
    }

    /** What {@link #submitToolOutputs} did. A closed set. Immutable. */
    sealed interface ToolOutputs {
        /** The run took them and goes on. */
        record Accepted(int count) implements ToolOutputs {}

        /** No such run. */
        record RunNotFound() implements ToolOutputs {}

        /** The run does not wait for tool outputs (it runs, waits for a person, or has ended). */
        record NotWaiting() implements ToolOutputs {}

        /** The outputs do not answer exactly the pending calls: {@code message} says which. */
        record Mismatch(String message) implements ToolOutputs {}
    }

    /**
     * Follows the runs of one origin kind across a takeover. A plugin that translates its runs' events for its own
     * clients (a background response's stream) contributes one as a plugin service; the host tells it of each durable
     * run of its kind that this process takes over from a process that stopped (at start, or from a dead node).
     * Called on the thread that takes the runs over: it must not block.
     */
    interface Resumer {
        /** The origin kind it follows: the runs whose {@link RunRequest#origin()} is {@code <kind>:<id>}. */
        String originKind();

        /**
         * Run {@code run} goes on in this process; {@code record} is its status record right after its
         * {@code run.resumed} event, which is event {@code record.lastSeq()}.
         */
        void resumed(RunHandle run, RunRecord record);

        /** A run of this kind was taken over and ended instead (interrupted, failed, cancelled): {@code record} says how. */
        void ended(RunRecord record);
    }
}
