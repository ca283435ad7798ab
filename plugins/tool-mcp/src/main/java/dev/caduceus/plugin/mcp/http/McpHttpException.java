package dev.caduceus.plugin.mcp.http;

import io.modelcontextprotocol.spec.McpTransportException;

/**
 * An MCP server answered an HTTP request with a status that is not a success. The message names the
 * server (scheme, host, port and path: never the query or user info), the status and a short excerpt
 * of the body with the configured header values blanked out; {@link #status()} gives the code, so a
 * caller can tell an authentication failure (401, 403) from the rest.
 */
public final class McpHttpException extends McpTransportException {
    private static final long serialVersionUID = 1L;
    private final int status;

    McpHttpException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The HTTP status the server answered. */
    public int status() {
        return status;
    }
}
