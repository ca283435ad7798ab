package dev.caduceus.support.services;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.util.List;

/**
 * Tool calls outside an agent turn, for an endpoint that serves this deployment's tools to another
 * client (an MCP client, through {@code endpoint-mcp}). A call goes through the same dispatcher as a
 * turn's: arguments coerced and checked, the tool's class loader, the result capped at its
 * {@code maxResultChars} and redacted, an exception turned into an error result. It runs in a
 * session of its own scoped to the caller's key (terminal state, memory), in the deployment's
 * workspace, with no approval channel: a dangerous action is refused unless approvals are off, as on
 * chat. Offered by the host itself, not by a plugin, and found like any plugin's service:
 * {@code ctx.service(ToolCalls.class)}, after boot.
 *
 * <p>Threading: thread-safe; {@link #call} blocks the calling thread. Lifecycle: usable after boot.
 */
public interface ToolCalls {

    /**
     * The available tools a caller is offered for {@code toolsets} (empty: {@code agent.toolsets}, as
     * a turn without toolsets of its own), ordered by name.
     */
    List<Tool> offered(Caller caller, List<String> toolsets);

    /**
     * Calls one tool and returns what the model would have seen. An unknown tool, or one not in
     * {@code request.toolsets()}, is an error result, not an exception.
     *
     * @throws InterruptedException when the calling thread is interrupted
     */
    ToolResult call(Request request) throws InterruptedException;

    /**
     * One direct tool call. Immutable.
     *
     * @param caller       who asks; the session is scoped to this key
     * @param session      the client's session id (an MCP session), or null for a session of this call only
     * @param toolsets     the toolsets the tool must be in (empty: {@code agent.toolsets})
     * @param tool         the tool's name
     * @param arguments    its arguments (never mutated)
     * @param cancellation fires when the client gives up (null: never)
     */
    record Request(Caller caller, String session, List<String> toolsets, String tool, ObjectNode arguments,
                   Cancellation cancellation) {
        public Request {
            requireNonNull(caller, "caller");
            toolsets = List.copyOf(toolsets);
            requireNonNull(tool, "tool");
            requireNonNull(arguments, "arguments");
        }
    }
}
