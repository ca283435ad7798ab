package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Who a turn's tool calls belong to: the run, the session (terminal state is kept per session) and
 * the memory scope ({@code key:} + sha256 of the session key, else
 * {@code session:<id>}; runs started on the owner's behalf, the request's origin, such as {@code job:<id>}), and the run's context, through which approvals
 * are asked. Immutable.
 */
record TurnScope(String runId, String sessionId, String memoryScope, RunContext run, String owner) {

    static TurnScope of(RunContext run, RunRequest request) {
        var runId = run.runId();
        // A named key's sessions (terminal state, workspace) and memory are its own: the same session
        // id or session key from another key is another session and another memory.
        var sessionId = request.sessionId() != null ? SessionStore.scoped(request.owner(), request.sessionId()) : runId;
        String scope;
        if (request.origin() != null) scope = request.origin(); // a job's runs share the job's memory
        else if (request.sessionKey() != null && !request.sessionKey().isBlank()) scope = "key:" + sha256(request.sessionKey());
        else scope = request.sessionId() != null ? "session:" + request.sessionId() : null;
        if (scope != null && !request.owner().equals(dev.caduceus.spi.http.Caller.ADMIN))
            scope = "owner:" + request.owner() + "/" + scope;
        return new TurnScope(runId, sessionId, scope, run, request.owner());
    }

    /**
     * The scope of a tool call outside a turn ({@link DirectToolCalls}): the client's session (or the
     * call's own), scoped to the caller's key as a turn's session is, and its memory scope.
     */
    static TurnScope direct(RunContext call, String owner, String session) {
        var sessionId = session != null ? SessionStore.scoped(owner, session) : call.runId();
        String scope = session != null ? "session:" + session : null;
        if (scope != null && !owner.equals(dev.caduceus.spi.http.Caller.ADMIN)) scope = "owner:" + owner + "/" + scope;
        return new TurnScope(call.runId(), sessionId, scope, call, owner);
    }

    /** Whether a person can answer approvals for this turn (runs and job runs). */
    boolean approvalChannel() {
        return run.approvalChannel();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
