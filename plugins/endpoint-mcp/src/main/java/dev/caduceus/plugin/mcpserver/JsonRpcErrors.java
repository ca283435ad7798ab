package dev.caduceus.plugin.mcpserver;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * JSON-RPC error answers of the transport itself, written here rather than with the SDK's record,
 * which refuses the {@code "id": null} that a message without a readable id must get. Pure functions.
 */
final class JsonRpcErrors {
    /** JSON-RPC's code for an internal error. */
    static final int INTERNAL_ERROR = McpSchema.ErrorCodes.INTERNAL_ERROR;

    private JsonRpcErrors() {}

    /** {@code {"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}}}; {@code id} may be null. */
    static ObjectNode error(Object id, int code, String message) {
        var body = JsonNodeFactory.instance.objectNode().put("jsonrpc", McpSchema.JSONRPC_VERSION);
        switch (id) {
            case null -> body.putNull("id");
            case String s -> body.put("id", s);
            case Integer i -> body.put("id", i);
            case Long l -> body.put("id", l);
            default -> body.put("id", id.toString());
        }
        body.putObject("error").put("code", code).put("message", message);
        return body;
    }

    /** -32700: the body is not JSON. */
    static ObjectNode parseError() {
        return error(null, McpSchema.ErrorCodes.PARSE_ERROR, "Parse error: the body is not valid JSON");
    }

    /** -32600: JSON, but not a valid MCP message. */
    static ObjectNode invalidRequest(Object id, String reason) {
        return error(id, McpSchema.ErrorCodes.INVALID_REQUEST, "Invalid Request: " + reason);
    }
}
