package dev.caduceus.plugin.mcp.http;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON-RPC messages to and from the wire with the SDK's mapper: one message or a batch (an array, which
 * 2025-03-26 servers may send) per body or event, and the few facts the transports read from a message.
 * Thread-safe.
 */
final class Messages {
    /** The notification a client sends to cancel a request it made. */
    static final String CANCELLED = "notifications/cancelled";

    private static final TypeRef<List<Object>> LIST = new TypeRef<>() { };
    private static final TypeRef<Map<String, Object>> MAP = new TypeRef<>() { };

    private final McpJsonMapper json;

    Messages(McpJsonMapper json) {
        this.json = requireNonNull(json, "json");
    }

    McpJsonMapper json() {
        return json;
    }

    byte[] write(JSONRPCMessage message) throws IOException {
        return json.writeValueAsString(message).getBytes(StandardCharsets.UTF_8);
    }

    /** The messages in {@code text}: one JSON-RPC object, or an array of them. */
    List<JSONRPCMessage> read(String text) throws IOException {
        var trimmed = text.strip();
        if (!trimmed.startsWith("[")) return List.of(McpSchema.deserializeJsonRpcMessage(json, trimmed));
        var all = new ArrayList<JSONRPCMessage>();
        for (var item : json.readValue(trimmed, LIST))
            all.add(McpSchema.deserializeJsonRpcMessage(json, json.writeValueAsString(item)));
        return all;
    }

    /** The id of a request, or null for a notification or a response. */
    static Object requestId(JSONRPCMessage message) {
        return message instanceof JSONRPCRequest request ? request.id() : null;
    }

    static boolean isInitialize(JSONRPCMessage message) {
        return message instanceof JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method());
    }

    static boolean isInitialized(JSONRPCMessage message) {
        return message instanceof JSONRPCNotification n && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method());
    }

    static String describe(JSONRPCMessage message) {
        if (message instanceof JSONRPCRequest r) return r.method();
        if (message instanceof JSONRPCNotification n) return n.method();
        return "a response";
    }

    /** The request a {@code notifications/cancelled} names, if {@code message} is one. */
    Optional<Object> cancelledRequest(JSONRPCMessage message) {
        if (!(message instanceof JSONRPCNotification n) || !CANCELLED.equals(n.method()) || n.params() == null)
            return Optional.empty();
        try {
            return Optional.ofNullable(json.convertValue(n.params(), MAP).get("requestId"));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The protocol version in an initialize result, if {@code message} carries one. */
    Optional<String> protocolVersion(JSONRPCMessage message) {
        if (!(message instanceof McpSchema.JSONRPCResponse response) || response.result() == null) return Optional.empty();
        try {
            var version = json.convertValue(response.result(), MAP).get("protocolVersion");
            return version instanceof String s ? Optional.of(s) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Whether an event of this name carries a JSON-RPC message (an absent name means {@code message}). */
    static boolean isMessageEvent(String event) {
        return event == null || event.isEmpty() || event.equals("message");
    }
}
