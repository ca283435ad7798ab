package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;

/**
 * One POSTed body read as a JSON-RPC 2.0 message of MCP, checked more strictly than the SDK's own
 * reader (which converts loosely): an object (no batches: MCP 2025-06-18 dropped them) with
 * {@code "jsonrpc": "2.0"}, a string {@code method}, an {@code id} that is a string or an integer
 * (never null) and {@code params}, when present, an object. Anything else is {@link Invalid}, answered
 * with -32600. Immutable values; {@link #read} is a pure function.
 */
sealed interface JsonRpcMessage {

    /** A request: answered with its response. */
    record Request(McpSchema.JSONRPCRequest message) implements JsonRpcMessage {}

    /** A notification: accepted with 202 and no body. */
    record Notification(McpSchema.JSONRPCNotification message) implements JsonRpcMessage {}

    /** A response or an error from the client (to a request this stateless server never sends): 202. */
    record Reply() implements JsonRpcMessage {}

    /**
     * Not a valid MCP message.
     *
     * @param id     the message's id when it had a valid one (the error answer carries it), else null
     * @param reason what is wrong, for the client
     */
    record Invalid(Object id, String reason) implements JsonRpcMessage {}

    /** Reads {@code body}; {@code mapper} converts {@code params} to the SDK's plain maps. */
    static JsonRpcMessage read(JsonNode body, ObjectMapper mapper) {
        if (body.isArray()) return new Invalid(null, "JSON-RPC batches are not supported; send one message per request");
        if (!body.isObject()) return new Invalid(null, "A JSON-RPC message must be a JSON object");
        Object id = null;
        var idNode = body.get("id");
        if (idNode != null) {
            if (idNode.isTextual()) id = idNode.asText();
            else if (idNode.isIntegralNumber() && idNode.canConvertToLong()) id = idNode.canConvertToInt() ? (Object) idNode.intValue() : (Object) idNode.longValue();
            else return new Invalid(null, "'id' must be a string or an integer");
        }
        var version = body.get("jsonrpc");
        if (version == null || !version.isTextual() || !McpSchema.JSONRPC_VERSION.equals(version.asText()))
            return new Invalid(id, "'jsonrpc' must be \"2.0\"");
        var method = body.get("method");
        if (method == null) {
            if (id != null && (body.has("result") || body.has("error"))) return new Reply();
            return new Invalid(id, "A JSON-RPC message needs a 'method' (or 'result' or 'error' with an 'id')");
        }
        if (!method.isTextual() || method.asText().isEmpty()) return new Invalid(id, "'method' must be a non-empty string");
        var paramsNode = body.get("params");
        Map<?, ?> params = null;
        if (paramsNode != null && !paramsNode.isNull()) {
            if (!paramsNode.isObject()) return new Invalid(id, "'params' must be an object");
            params = mapper.convertValue(paramsNode, Map.class);
        }
        if (id == null) return new Notification(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method.asText(), params));
        return new Request(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method.asText(), id, params));
    }
}
