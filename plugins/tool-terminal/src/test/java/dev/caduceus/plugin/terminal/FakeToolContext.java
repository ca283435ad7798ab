package dev.caduceus.plugin.terminal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.ToolContext;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ToolContext} for tests: fixed ids and workspace, a settable cancellation, a scripted
 * approval answer and a flag for the approval channel; it records approval requests and progress.
 */
final class FakeToolContext implements ToolContext {
    private final String runId;
    private final String sessionId;
    private final Path workspace;
    private final ObjectMapper json;
    private final Signal cancellation = new Signal();
    private final boolean approvalChannel;
    private final ApprovalChoice answer;
    final List<ApprovalRequest> approvals = new CopyOnWriteArrayList<>();

    FakeToolContext(String sessionId, Path workspace, ObjectMapper json, boolean approvalChannel, ApprovalChoice answer) {
        this.runId = "run_" + sessionId;
        this.sessionId = sessionId;
        this.workspace = workspace;
        this.json = json;
        this.approvalChannel = approvalChannel;
        this.answer = answer;
    }

    @Override public String runId() { return runId; }
    @Override public String sessionId() { return sessionId; }
    @Override public Path workspace() { return workspace; }
    @Override public ObjectMapper json() { return json; }
    @Override public Signal cancellation() { return cancellation; }
    @Override public boolean approvalChannel() { return approvalChannel; }
    @Override public void progress(String label) {}

    @Override
    public ApprovalChoice approval(ApprovalRequest request) {
        approvals.add(request);
        return approvalChannel ? answer : ApprovalChoice.DENY;
    }

    /** A cancellation a test can fire. */
    static final class Signal implements Cancellation {
        private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
        private volatile boolean cancelled;

        void cancel() {
            cancelled = true;
            callbacks.forEach(Runnable::run);
        }

        @Override public boolean isCancelled() { return cancelled; }

        @Override
        public AutoCloseable onCancel(Runnable callback) {
            if (cancelled) {
                callback.run();
                return () -> {};
            }
            callbacks.add(callback);
            return () -> callbacks.remove(callback);
        }
    }
}
