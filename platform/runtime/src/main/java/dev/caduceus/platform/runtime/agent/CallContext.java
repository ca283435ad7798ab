package dev.caduceus.platform.runtime.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.ToolContext;
import java.nio.file.Path;

/**
 * The {@link ToolContext} of one call. Approval requests go to the run (which answers
 * {@link ApprovalChoice#DENY} at once where no person can answer); progress labels are logged at
 * debug level.
 */
record CallContext(TurnScope scope, Path workspace, ObjectMapper json, Cancellation cancellation, String tool)
        implements ToolContext {

    @Override
    public String runId() {
        return scope.runId();
    }

    @Override
    public String sessionId() {
        return scope.sessionId();
    }

    @Override
    public String owner() {
        return scope.owner();
    }

    @Override
    public String memoryScope() {
        return scope.memoryScope();
    }

    @Override
    public boolean approvalChannel() {
        return scope.approvalChannel();
    }

    @Override
    public void progress(String label) {
        org.slf4j.LoggerFactory.getLogger(CallContext.class).debug("{} {}: {}", scope.runId(), tool, label);
    }

    @Override
    public ApprovalChoice approval(ApprovalRequest request) throws InterruptedException {
        return scope.run().requestApproval(request);
    }
}
