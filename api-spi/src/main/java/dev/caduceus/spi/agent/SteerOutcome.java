package dev.caduceus.spi.agent;

/** What {@link Runs#submitSteer} did: guidance for a running agent, applied after its current tool batch. */
public enum SteerOutcome {
    /** Queued; the run applies it after its current tool batch. */
    ACCEPTED,
    /** No such run. */
    RUN_NOT_FOUND,
    /** The run's status is not exactly {@code running}. */
    NOT_RUNNING,
    /** The run is running but cannot take guidance (for example it is ending). */
    NOT_ACCEPTED
}
