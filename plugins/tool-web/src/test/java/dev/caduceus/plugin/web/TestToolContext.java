package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.ToolContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A minimal {@link ToolContext} for these tests, with a cancellation the test can fire. */
final class TestToolContext implements ToolContext {
    private final Path workspace;
    private final ObjectMapper json = new ObjectMapper();
    final TestCancellation cancellation = new TestCancellation();

    TestToolContext(Path workspace) {
        this.workspace = workspace;
    }

    @Override public String runId() { return "run-1"; }
    @Override public Path workspace() { return workspace; }
    @Override public ObjectMapper json() { return json; }
    @Override public Cancellation cancellation() { return cancellation; }
    @Override public void progress(String label) {}
    @Override public ApprovalChoice approval(ApprovalRequest request) { return ApprovalChoice.DENY; }

    static final class TestCancellation implements Cancellation {
        private final List<Runnable> callbacks = new ArrayList<>();
        private volatile boolean cancelled;

        @Override public boolean isCancelled() { return cancelled; }

        @Override
        public synchronized AutoCloseable onCancel(Runnable callback) {
            if (cancelled) callback.run();
            else callbacks.add(callback);
            return () -> { synchronized (this) { callbacks.remove(callback); } };
        }

        synchronized void cancel() {
            cancelled = true;
            callbacks.forEach(Runnable::run);
            callbacks.clear();
        }
    }
}
