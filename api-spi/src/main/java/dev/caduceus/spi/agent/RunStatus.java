package dev.caduceus.spi.agent;

/**
 * Where a run is in its life. The wire name is the lower-case constant name.
 */
public enum RunStatus {
    QUEUED, RUNNING, WAITING_FOR_APPROVAL, STOPPING, COMPLETED, FAILED, CANCELLED, INTERRUPTED,
    /** Waits for the caller's outputs of its own tool calls ({@link Runs#submitToolOutputs}). */
    REQUIRES_ACTION;

    /** Whether no more events will follow. */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == CANCELLED || this == INTERRUPTED;
    }

    /** The wire name ({@code waiting_for_approval}). */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
