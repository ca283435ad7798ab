package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.spi.tool.ToolResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Tool calls outside a turn (endpoint-mcp's): the turn's dispatcher (redaction, errors as results),
 * a session scoped to the caller's key, no approval channel, and a named key's toolset limit.
 */
class DirectToolCallsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AtomicReference<ToolContext> seen = new AtomicReference<>();

    private ToolCalls calls(OwnerPolicies policies) {
        var echo = Tools.tool("echo", (call, ctx) -> {
            seen.set(ctx);
            var approval = ctx.approval(new ToolContext.ApprovalRequest("rm -rf /", "recursive delete", "rm-recursive"));
            return new ToolResult.Ok(call.arguments().path("text").asText() + " sk-secret-1 " + approval);
        });
        var boom = Tools.tool("boom", (call, ctx) -> { throw new IllegalStateException("it broke"); });
        var selection = new ToolSelection(Tools.catalog(echo, boom), ToolSelection.DEFAULT);
        var dispatcher = new ToolDispatcher(Map.of(), JSON, Redactor.of(List.of("sk-secret-1")), Path.of("/work/space"));
        return new DirectToolCalls(selection, dispatcher, policies);
    }

    private static ToolCalls.Request request(Caller caller, String session, String tool, String text) {
        return new ToolCalls.Request(caller, session, List.of(), tool,
                JsonNodeFactory.instance.objectNode().put("text", text), null);
    }

    @Test
    void aCallGoesThroughTheDispatcherInASessionOfTheCallersKey() throws Exception {
        var calls = calls(OwnerPolicies.NONE);
        assertEquals(List.of("boom", "echo"), calls.offered(Caller.ADMIN_CALLER, List.of()).stream().map(t -> t.spec().name()).toList());

        var result = calls.call(request(Caller.tenant("alice"), "mcp", "echo", "hi"));
        var ok = assertInstanceOf(ToolResult.Ok.class, result);
        assertFalse(ok.content().contains("sk-secret-1"), "redacted: " + ok.content());
        assertTrue(ok.content().endsWith("DENY"), "no approval channel: a dangerous action is denied: " + ok.content());
        var ctx = seen.get();
        assertFalse(ctx.approvalChannel());
        assertEquals(SessionStore.scoped("alice", "mcp"), ctx.sessionId(), "the session is alice's own");
        assertEquals("owner:alice/session:mcp", ctx.memoryScope());
        assertTrue(ctx.runId().startsWith("call_"), ctx.runId());

        calls.call(request(Caller.tenant("bob"), "mcp", "echo", "hi"));
        assertEquals(SessionStore.scoped("bob", "mcp"), seen.get().sessionId(), "bob's session is not alice's");
    }

    @Test
    void failuresAndUnknownToolsAreErrorResults() throws Exception {
        var calls = calls(OwnerPolicies.NONE);
        var failed = assertInstanceOf(ToolResult.Error.class, calls.call(request(Caller.ADMIN_CALLER, null, "boom", "")));
        assertTrue(failed.message().contains("it broke"), failed.message());
        var unknown = assertInstanceOf(ToolResult.Error.class, calls.call(request(Caller.ADMIN_CALLER, null, "nope", "")));
        assertTrue(unknown.message().contains("Unknown tool: nope"), unknown.message());
    }

    @Test
    void aKeyLimitedToOtherToolsetsIsOfferedNothingAndARevokedKeyNothingAtAll() throws Exception {
        var limited = new OwnerPolicies() {
            @Override public boolean inForce(String owner) { return !owner.equals("revoked"); }
            @Override public int maxConcurrentRuns(String owner) { return 0; }
            @Override public List<String> toolsets(String owner) { return owner.equals("ci") ? List.of("web") : List.of(); }
        };
        var calls = calls(limited);
        assertEquals(List.of(), calls.offered(Caller.tenant("ci"), List.of()));
        var refused = assertInstanceOf(ToolResult.Error.class, calls.call(request(Caller.tenant("ci"), null, "echo", "hi")));
        assertTrue(refused.message().contains("Unknown tool"), refused.message());
        var revoked = assertInstanceOf(ToolResult.Error.class, calls.call(request(Caller.tenant("revoked"), null, "echo", "hi")));
        assertTrue(revoked.message().contains("revoked"), revoked.message());
        assertEquals(2, calls.offered(Caller.tenant("alice"), List.of()).size());
    }
}
