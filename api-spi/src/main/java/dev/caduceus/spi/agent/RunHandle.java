package dev.caduceus.spi.agent;

/**
 * A started run. Thread-safe; any number of threads may subscribe, await or cancel.
 * Lifecycle: valid for as long as the run is in the journal.
 */
public interface RunHandle {

    /** The run id ({@code run_} + 32 hex). */
    String id();

    /** Subscribes to events with {@code seq > afterSeq} (0 for all), then the live tail. */
    RunSubscription subscribe(long afterSeq);

    /** Blocks until the run ends. */
    RunResult await() throws InterruptedException;

    /** Requests cancellation; the run ends with {@link RunEvent.Cancelled}. Idempotent. */
    void cancel(String reason);
}
