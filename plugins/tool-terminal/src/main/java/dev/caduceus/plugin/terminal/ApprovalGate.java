package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides whether a flagged command runs: hardline matches never run; patterns
 * allowed for the session or always run without asking; {@code approvals.mode: off} runs
 * everything else; otherwise the user is asked over the approval channel, and without one the
 * command is blocked.
 *
 * <p>{@code always} patterns are stored ({@link PermanentAllowlist}, the plugin's
 * {@code approval_allowlist} table) and survive restarts; {@code session} patterns are kept in
 * memory until the server restarts or {@link #forget} is called at session end. {@code always}
 * for a pattern with {@code allow_permanent: false} is kept for the session only. Threading:
 * thread-safe.
 */
final class ApprovalGate {
    private final boolean approvalsOff;
    private final PermanentAllowlist always;
    private final Map<String, Set<String>> bySession = new ConcurrentHashMap<>();

    /** The decision. */
    sealed interface Decision {
        /** Run it; {@code approval} is the result's {@code "approval"} field, or null. */
        record Run(String approval) implements Decision {}

        /** Do not run it; {@code error} is the blocked result's {@code "error"}. */
        record Blocked(String error) implements Decision {}
    }

    ApprovalGate(boolean approvalsOff, PermanentAllowlist always) {
        this.approvalsOff = approvalsOff;
        this.always = always;
    }

    Decision decide(DangerousCommands.Match match, String command, String session, ToolContext ctx)
            throws InterruptedException {
        var key = match.key();
        var description = match.description();
        if (match.hardline())
            return new Decision.Blocked("Command blocked: " + description + " (" + key + "). This command is never "
                    + "allowed, not even with approval; use a safer alternative.");
        if (always.contains(key) || bySession.getOrDefault(session, Set.of()).contains(key)) return new Decision.Run(null);
        if (approvalsOff) return new Decision.Run(null);
        if (!ctx.approvalChannel())
            return new Decision.Blocked("Command blocked: " + description + " (" + key + "). It needs human approval, "
                    + "which is not available here; use a safer alternative.");
        var choice = ctx.approval(new ApprovalRequest(command, description, key, match.allowPermanent()));
        return switch (choice) {
            case ONCE -> new Decision.Run("approved once by the user (" + key + ")");
            case SESSION -> {
                allowForSession(session, key);
                yield new Decision.Run("approved for this session by the user (" + key + ")");
            }
            case ALWAYS -> {
                if (!match.allowPermanent()) {
                    allowForSession(session, key);
                    yield new Decision.Run("approved for this session by the user (" + key + "; cannot be allowed permanently)");
                }
                always.add(key);
                yield new Decision.Run("approved permanently by the user (" + key + ")");
            }
            case DENY -> new Decision.Blocked("Command denied by the user: " + description);
            case TIMED_OUT -> new Decision.Blocked("Approval timed out: " + description);
        };
    }

    private void allowForSession(String session, String key) {
        bySession.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet()).add(key);
    }

    /** Drops a session's allowlist; the hook for session end (not called by the runtime yet). */
    void forget(String session) {
        bySession.remove(session);
    }
}
