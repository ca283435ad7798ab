package dev.caduceus.plugin.mcp.http;

import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;

/**
 * One of the two ways of carrying MCP over HTTP, behind {@link McpHttpTransport}. Both block the
 * calling thread (a virtual thread of the transport's).
 */
interface Mode {

    /** {@code "http"} (streamable HTTP) or {@code "sse"} (the older HTTP+SSE). */
    String kind();

    /**
     * Sends {@code message}, calling {@code accepted} once the server took it (its status is a success);
     * any answer that follows is read on this thread and handed to the inbox. Throws, before
     * {@code accepted}, when the server refused the message or could not be reached.
     */
    void send(JSONRPCMessage message, Runnable accepted) throws Exception;

    /** Ends the session with the server (as gracefully as it allows); blocks at most a few seconds. */
    void close();

    /**
     * Thrown by the streamable mode when the server answered the first {@code initialize} with 400, 404
     * or 405: it does not speak streamable HTTP, so the older transport is tried.
     */
    final class Fallback extends Exception {
        private static final long serialVersionUID = 1L;

        Fallback(String why) {
            super(why, null, false, false);
        }
    }
}
