package dev.caduceus.spi.agent;

import static java.util.Objects.requireNonNull;

/**
 * What {@link Runs#submit} answers: the run, its status at this moment and whether an earlier run
 * was returned for a repeated idempotency key (then nothing new was started). Immutable.
 */
public record RunStart(RunHandle handle, RunStatus status, boolean replayed) {
    public RunStart {
        requireNonNull(handle, "handle");
        requireNonNull(status, "status");
    }
}
