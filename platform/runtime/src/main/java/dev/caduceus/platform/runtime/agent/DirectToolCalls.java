package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolResult;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@link ToolCalls} of the local runtime: the turn's {@link ToolSelection} (with the caller's key
 * limited to its toolsets, as {@link RunService} limits its runs) and the turn's {@link ToolDispatcher}
 * (coercion, caps, redaction, the plugin's loader). Each call has an id of its own ({@code call_…})
 * and no approval channel. Thread-safe.
 */
final class DirectToolCalls implements ToolCalls {
    private static final Cancellation NEVER = new Cancellation() {
        @Override public boolean isCancelled() { return false; }
        @Override public AutoCloseable onCancel(Runnable callback) { return () -> {}; }
    };

    private final ToolSelection tools;
    private final ToolDispatcher dispatcher;
    private final OwnerPolicies policies;
    private final SecureRandom random = new SecureRandom();

    /** @param policies the run service's key policies */
    DirectToolCalls(ToolSelection tools, ToolDispatcher dispatcher, OwnerPolicies policies) {
        this.tools = tools;
        this.dispatcher = dispatcher;
        this.policies = policies;
    }

    @Override
    public List<Tool> offered(Caller caller, List<String> toolsets) {
        var allowed = policies.toolsets(caller.name());
        var asked = List.copyOf(toolsets);
        if (!allowed.isEmpty()) {
            asked = asked.isEmpty() ? allowed : asked.stream().filter(allowed::contains).toList();
            if (asked.isEmpty()) asked = List.of(RunService.NO_TOOLSET);
        }
        return tools.select(asked);
    }

    @Override
    public ToolResult call(Request request) throws InterruptedException {
        var owner = request.caller().name();
        if (!policies.inForce(owner))
            return new ToolResult.Error("API key '" + owner + "' is revoked", false);
        var offered = new LinkedHashMap<String, Tool>();
        offered(request.caller(), request.toolsets()).forEach(t -> offered.put(t.spec().name(), t));
        var cancel = request.cancellation() != null ? request.cancellation() : NEVER;
        var id = "call_" + HexFormat.of().formatHex(bytes());
        var context = new CallRun(id, cancel);
        var scope = TurnScope.direct(context, owner, request.session());
        var outcome = dispatcher.dispatch(new ToolCall(id, request.tool(), request.arguments()), offered, scope, cancel);
        if (outcome.error()) return new ToolResult.Error(outcome.content(), false);
        return new ToolResult.Ok(outcome.content());
    }

    private byte[] bytes() {
        var bytes = new byte[12];
        random.nextBytes(bytes);
        return bytes;
    }

    /** The run context of one direct call: no events, no steering, approvals denied at once. */
    private record CallRun(String runId, Cancellation cancellation) implements RunContext {
        @Override public void emit(RunEvent event) {}
        @Override public List<String> drainSteering() { return List.of(); }
    }
}
