package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.support.cancel.OneShotCancellation;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The SDK's stateless request handler with {@code tools/list} and {@code tools/call} answered per
 * caller: the SDK's server keeps one fixed tool list for everyone, while ours depends on the key
 * (its toolsets) and changes at run time (MCP servers' tools). Every other method (initialize, ping,
 * an unknown one: -32601) goes to the SDK. The caller and the request's cancellation come in the
 * {@link McpTransportContext} that {@link ExchangeTransport} fills.
 *
 * <p>{@code tools/call} goes through {@link ToolCalls} in the session {@value #SESSION} (the host
 * scopes it to the key: one terminal and memory state per key), with no approval channel: a
 * dangerous command is refused unless approvals are off. A tool the caller is not offered is -32602,
 * as in the SDK. {@code notifications/cancelled} cancels the caller's call of that id.
 *
 * <p>Thread-safe: the in-flight calls are in a concurrent map; calls run on the request's thread.
 */
final class CallerTools implements McpStatelessServerHandler {
    /** The tool session of every MCP call; the host keeps one per key. */
    static final String SESSION = "mcp";
    static final String CANCELLED = "notifications/cancelled";
    private static final System.Logger LOG = System.getLogger(CallerTools.class.getName());

    private final McpStatelessServerHandler sdk;
    private final Supplier<ToolCalls> calls;
    private final List<String> toolsets;
    private final AgentTool agent;
    private final ToolShapes shapes;
    private final ObjectMapper mapper;
    private final Map<InFlight, OneShotCancellation> inFlight = new ConcurrentHashMap<>();

    /**
     * @param calls    the host's direct tool calls (after boot, so looked up on each request)
     * @param toolsets the served toolsets (empty: {@code agent.toolsets})
     * @param agent    the {@code agent} tool, or null when it is off
     */
    CallerTools(McpStatelessServerHandler sdk, Supplier<ToolCalls> calls, List<String> toolsets, AgentTool agent,
                ObjectMapper mapper) {
        this.sdk = sdk;
        this.calls = calls;
        this.toolsets = List.copyOf(toolsets);
        this.agent = agent;
        this.mapper = mapper;
        this.shapes = new ToolShapes(mapper);
    }

    @Override
    public Mono<McpSchema.JSONRPCResponse> handleRequest(McpTransportContext context, McpSchema.JSONRPCRequest request) {
        return switch (request.method()) {
            case McpSchema.METHOD_TOOLS_LIST -> answer(request, () -> list(ExchangeTransport.caller(context)));
            case McpSchema.METHOD_TOOLS_CALL -> answer(request, () -> call(context, request));
            default -> sdk.handleRequest(context, request);
        };
    }

    @Override
    public Mono<Void> handleNotification(McpTransportContext context, McpSchema.JSONRPCNotification notification) {
        if (!CANCELLED.equals(notification.method())) return sdk.handleNotification(context, notification);
        return Mono.fromRunnable(() -> {
            if (notification.params() instanceof Map<?, ?> params && params.get("requestId") != null) {
                var call = inFlight.get(InFlight.of(ExchangeTransport.caller(context).name(), params.get("requestId")));
                if (call != null) call.cancel();
            }
        });
    }

    private McpSchema.ListToolsResult list(Caller caller) {
        var tools = new ArrayList<McpSchema.Tool>();
        var offered = calls.get().offered(caller, toolsets);
        offered.forEach(t -> tools.add(shapes.tool(t.spec())));
        if (agentServed(offered)) tools.add(agent.tool());
        return new McpSchema.ListToolsResult(tools, null, null);
    }

    private McpSchema.CallToolResult call(McpTransportContext context, McpSchema.JSONRPCRequest request)
            throws InterruptedException {
        if (!(request.params() instanceof Map<?, ?> params) || !(params.get("name") instanceof String name))
            throw invalidParams("tools/call needs params.name, a string");
        var arguments = params.get("arguments");
        if (arguments == null) arguments = Map.of();
        if (!(arguments instanceof Map<?, ?> args)) throw invalidParams("params.arguments must be an object");
        var caller = ExchangeTransport.caller(context);
        var cancellation = ExchangeTransport.cancellation(context);
        var key = InFlight.of(caller.name(), request.id());
        inFlight.put(key, cancellation);
        try {
            var offered = calls.get().offered(caller, toolsets);
            if (offered.stream().noneMatch(t -> t.spec().name().equals(name))) {
                if (agent != null && AgentTool.NAME.equals(name) && agentServed(offered))
                    return agent.call(caller, args, cancellation);
                throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("Unknown tool: " + name)
                        .data("Tool not found: " + name).build();
            }
            ObjectNode node = mapper.valueToTree(args);
            return ToolShapes.result(calls.get().call(new ToolCalls.Request(caller, SESSION, toolsets, name, node,
                    cancellation)));
        } finally {
            inFlight.remove(key, cancellation);
        }
    }

    /** Whether the agent tool is on and no deployment tool of the caller's has its name. */
    private boolean agentServed(List<dev.caduceus.spi.tool.Tool> offered) {
        return agent != null && offered.stream().noneMatch(t -> t.spec().name().equals(AgentTool.NAME));
    }

    /** The request's response: {@code body}'s result, or its McpError, or -32603 for anything else (logged). */
    private static Mono<McpSchema.JSONRPCResponse> answer(McpSchema.JSONRPCRequest request, Body body) {
        return Mono.fromCallable(() -> {
            try {
                return McpSchema.JSONRPCResponse.result(request.id(), body.get());
            } catch (McpError e) {
                return McpSchema.JSONRPCResponse.error(request.id(), e.getJsonRpcError());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        JsonRpcErrors.INTERNAL_ERROR, "Interrupted"));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "MCP " + request.method() + " failed", e);
                return McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        JsonRpcErrors.INTERNAL_ERROR, "Internal error"));
            }
        });
    }

    private static McpError invalidParams(String message) {
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message(message).build();
    }

    @FunctionalInterface
    private interface Body {
        Object get() throws InterruptedException;
    }

    /** A call in flight: the caller's key name and the request id (numbers as longs). */
    private record InFlight(String owner, Object id) {
        static InFlight of(String owner, Object id) {
            return new InFlight(owner, id instanceof Number n ? (Object) n.longValue() : String.valueOf(id));
        }
    }
}
