package dev.caduceus.spi.agent;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * The host's run service: admission (concurrency cap, draining), the run thread, status, journal,
 * stop, approvals and steering. Endpoint plugins reach it through
 * {@link dev.caduceus.spi.PlatformContext#runs()}.
 *
 * <p>Threading: thread-safe. Lifecycle: usable after boot; while shutting down, {@link #start}
 * throws {@link RunRejectedException} with {@link RunRejectedException.Reason#DRAINING}.
 */
public interface Runs {

    /**
     * Throws if {@link #start} would refuse a run right now (draining, no model, at the concurrency
     * cap). Chat and Responses call it before parsing the body; {@code start} checks again.
     */
    void checkAdmission() throws RunRejectedException;

    /**
     * Throws if no run can start at all right now (draining, no model), ignoring the concurrency cap.
     * The runs API calls it before validating the body (draining and a missing model answer 503 before any 400) and leaves the
     * cap to {@link #submit}, after the idempotency-key lookup.
     */
    default void checkReady() throws RunRejectedException {}

    /** Admits and starts a run on its own thread; returns at once. */
    RunHandle start(RunRequest request) throws RunRejectedException;

    /**
     * Admits an in-memory run like {@link #start} and executes it on the calling thread, for a caller
     * that would only wait for the result (a non-streaming chat or Responses turn): no run thread and
     * no hand-off back. {@code started} receives the handle before the run executes, so that another
     * thread can cancel it (the client left); it must not block. Returns the run's result.
     */
    default RunResult call(RunRequest request, Consumer<RunHandle> started)
            throws RunRejectedException, InterruptedException {
        var handle = start(request);
        started.accept(handle);
        return handle.await();
    }

    /** A run by id, live or finished (within retention). */
    Optional<RunHandle> find(String runId);

    /** Answers a pending approval; false when none is pending. */
    boolean approve(String runId, String approvalId, String choice);

    /** Queues steering text for a running run; false when it cannot accept it. */
    boolean steer(String runId, String text);

    /**
     * Admits and starts a run kept as {@code options} says. For a durable run the status record
     * exists (status {@code queued}) when this returns. With an idempotency key: a key already
     * recorded with the same fingerprint returns the original run ({@code replayed}, nothing
     * started, no admission check); with another fingerprint it throws
     * {@link RunRejectedException.Reason#IDEMPOTENCY_CONFLICT}. Admission (draining, model,
     * concurrency cap) is checked after the key lookup.
     */
    default RunStart submit(RunRequest request, RunOptions options) throws RunRejectedException {
        if (options.durable()) throw new UnsupportedOperationException("durable runs are not provided by this host");
        return new RunStart(start(request), RunStatus.RUNNING, false);
    }

    /** The status record of a durable run (live or within retention). */
    default Optional<RunRecord> record(String runId) {
        throw new UnsupportedOperationException("run records are not provided by this host");
    }

    /** Durable runs matching {@code query}, newest first. */
    default RunPage list(RunQuery query) {
        throw new UnsupportedOperationException("run listing is not provided by this host");
    }

    /**
     * Asks a live run to stop: status {@code stopping}, pending approvals resolve
     * as deny, the agent is interrupted; the run ends {@code cancelled}. Idempotent while the run is
     * live; false when it is not live (unknown or finished).
     */
    default boolean stop(String runId) {
        var run = find(runId);
        run.ifPresent(r -> r.cancel("stopped"));
        return run.isPresent();
    }

    /** Answers pending approvals of a durable run. */
    default ApprovalOutcome approve(String runId, ApprovalAnswer answer) {
        throw new UnsupportedOperationException("approvals are not provided by this host");
    }

    /** Queues steering text and says why when it cannot. */
    default SteerOutcome submitSteer(String runId, String text) {
        if (find(runId).isEmpty()) return SteerOutcome.RUN_NOT_FOUND;
        return steer(runId, text) ? SteerOutcome.ACCEPTED : SteerOutcome.NOT_ACCEPTED;
    }
}
