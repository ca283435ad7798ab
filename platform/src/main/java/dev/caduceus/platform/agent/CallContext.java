package dev.caduceus.platform.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.Cancellation;
import dev.caduceus.spi.tool.ToolContext;
import java.nio.file.Path;

/**
 * The {@link ToolContext} of one call. There is no approval channel yet, so every approval request
 * is answered {@link ApprovalChoice#DENY} at once; progress labels are logged at debug level.
 */
record CallContext(String runId, Path workspace, ObjectMapper json, Cancellation cancellation, String tool)
        implements ToolContext {

    @Override
    public void progress(String label) {
        org.slf4j.LoggerFactory.getLogger(CallContext.class).debug("{} {}: {}", runId, tool, label);
    }

    @Override
    public ApprovalChoice approval(ApprovalRequest request) {
        return ApprovalChoice.DENY;
    }
}
