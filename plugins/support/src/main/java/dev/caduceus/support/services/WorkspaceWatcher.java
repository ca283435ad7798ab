package dev.caduceus.support.services;

import dev.caduceus.spi.tool.ToolContext;

/**
 * A look at the workspace around the tools of one run, for a plugin that acts on what the run's tools left there
 * ({@code endpoint-files} keeps what the agent wrote under {@code outputs/}). Offered as a service; the agent loop
 * finds every one ({@code all}) and calls {@link #beforeTools} just before a run's first call of a host tool that may
 * change the workspace (any whose risk is not {@code READ_ONLY}), so that a run that calls no such tool costs a
 * watcher nothing, and then, exactly once for such a run, {@link #afterRun}
 * when its loop ends, whatever the outcome, before the run's terminal event: what a watcher does there is visible
 * to whoever reads the run's result. Both are given the run's tool context (its id, owner, session and host
 * workspace).
 *
 * <p>Threading: both calls come on the run's own thread; runs call concurrently, so keep per-run state by
 * {@code runId}. An exception is logged and never fails the run.
 */
public interface WorkspaceWatcher {
    /** Before run {@code run}'s first call of a host tool that may change the workspace; at most once per run. */
    void beforeTools(ToolContext run) throws Exception;

    /** When the loop of a run that reached {@link #beforeTools} ends (also when it failed or was cancelled). */
    void afterRun(ToolContext run) throws Exception;
}
