package dev.caduceus.spi.agent;

import java.util.Optional;

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

    /** Admits and starts a run on its own thread; returns at once. */
    RunHandle start(RunRequest request) throws RunRejectedException;

    /** A run by id, live or finished (within retention). */
    Optional<RunHandle> find(String runId);

    /** Answers a pending approval; false when none is pending. */
    boolean approve(String runId, String approvalId, String choice);

    /** Queues steering text for a running run; false when it cannot accept it. */
    boolean steer(String runId, String text);
}
