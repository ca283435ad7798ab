package dev.caduceus.plugin.mcp.http;

import dev.caduceus.spi.outbound.OutboundHttp;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * STUB until the HTTP transports are merged (another branch writes this class): opening a {@code url}
 * server throws, so such a server is reported unavailable with that reason. Stateless.
 */
public final class HttpTransports {
    private HttpTransports() {}

    /** The transport of a {@code url} server: streamable HTTP, falling back to HTTP+SSE. */
    public static McpClientTransport open(OutboundHttp http, URI url, Map<String, String> headers,
                                          Duration connectTimeout, McpJsonMapper json) {
        throw new UnsupportedOperationException("HTTP transport not merged yet");
    }

    /** {@code http} or {@code sse}: which of the two {@link #open} chose. */
    public static String kind(McpClientTransport transport) {
        return "http";
    }
}
