package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.support.services.WorkspaceWatcher;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workspace watchers of one run: told just before its first call of a host tool that may change the workspace
 * (the agent loop decides: any but a read-only tool) and, when they were, once when its loop ends. A run that calls
 * no such tool never reaches them. A watcher that throws is logged and skipped;
 * the end is told with the thread's interrupt set aside (a stopped run's watchers still finish), and set again.
 *
 * <p>Threading: confined to the run's thread.
 */
final class RunWatches {
    private static final Logger LOG = LoggerFactory.getLogger(RunWatches.class);
    private final List<WorkspaceWatcher> watchers;
    private final ToolContext run;
    private boolean watching;

    RunWatches(List<WorkspaceWatcher> watchers, ToolContext run) {
        this.watchers = watchers;
        this.run = run;
    }

    void beforeTools() {
        if (watching || watchers.isEmpty()) return;
        watching = true;
        for (var watcher : watchers) {
            try {
                watcher.beforeTools(run);
            } catch (Exception | LinkageError e) {
                LOG.warn("Run {}: a workspace watcher failed before its tools", run.runId(), e);
            }
        }
    }

    void afterRun() {
        if (!watching) return;
        watching = false;
        boolean interrupted = Thread.interrupted();
        try {
            for (var watcher : watchers) {
                try {
                    watcher.afterRun(run);
                } catch (Exception | LinkageError e) {
                    LOG.warn("Run {}: a workspace watcher failed after the run", run.runId(), e);
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
