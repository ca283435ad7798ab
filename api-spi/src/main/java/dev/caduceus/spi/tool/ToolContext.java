package dev.caduceus.spi.tool;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.tool.Cancellation;
import java.nio.file.Path;

/**
 * What a tool call gets from the host.
 *
 * <p>Threading: confined to the call's thread, except {@link #cancellation()}, which is thread-safe.
 * Lifecycle: valid until {@link Tool#call} returns.
 */
public interface ToolContext {

    /** The run this call belongs to. */
    String runId();

    /** The workspace directory the call must stay inside. */
    Path workspace();

    /** The tool's plugin mapper, for binding arguments to records. */
    ObjectMapper json();

    /** Fires when the run is stopped; long-running tools must check it or register a callback. */
    Cancellation cancellation();

    /**
     * The session this call belongs to (the terminal's working directory, environment and background
     * processes are kept per session); the run id when the turn has no session.
     */
    default String sessionId() { return runId(); }

    /**
     * The memory scope of this turn (from {@code X-Hermes-Session-Key}, else the session, or the job): {@code key:<sha256 of the session key>},
     * {@code session:<id>} or {@code job:<id>}; null when the turn has none.
     */
    default String memoryScope() { return null; }

    /**
     * The name of the key the turn belongs to ({@link dev.caduceus.spi.http.Caller#name()}): what a tool stores
     * for the turn is that key's; null where the host does not say.
     */
    default String owner() { return null; }

    /** Whether a person can answer {@link #approval} here (runs, job runs); false for chat, Responses, batch. */
    default boolean approvalChannel() { return false; }

    /** Reports a short progress label for progress displays. */
    void progress(String label);

    /**
     * Asks for approval of a dangerous action and blocks until answered or timed out. Where no
     * approval channel exists it returns {@link ApprovalChoice#DENY} at once.
     */
    ApprovalChoice approval(ApprovalRequest request) throws InterruptedException;

    /**
     * A dangerous action awaiting approval.
     *
     * @param pattern        the matched rule's key ({@code rm-recursive})
     * @param allowPermanent whether {@code always} may be offered for this rule
     */
    record ApprovalRequest(String command, String description, String pattern, boolean allowPermanent) {
        /** A request whose rule may be allowed permanently. */
        public ApprovalRequest(String command, String description, String pattern) {
            this(command, description, pattern, true);
        }
    }

    /** An approval answer; {@code TIMED_OUT} when nobody answered within {@code approvals.timeout}. */
    enum ApprovalChoice { ONCE, SESSION, ALWAYS, DENY, TIMED_OUT }
}
