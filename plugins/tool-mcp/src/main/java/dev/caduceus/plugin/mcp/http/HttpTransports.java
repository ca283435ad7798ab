package dev.caduceus.plugin.mcp.http;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.outbound.OutboundHttp;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The MCP client's HTTP transports, on the host's outbound client. {@link #open} gives the SDK a
 * transport for a configured {@code url}: streamable HTTP (MCP 2025-03-26 and later: a POST per
 * message, answers as JSON or as an event stream, the {@code Mcp-Session-Id} kept, an optional GET
 * stream for what the server sends on its own, the session DELETEd on close), and, when the server
 * answers the first {@code initialize} POST with 400, 404 or 405, the older HTTP+SSE transport
 * (2024-11-05: a GET event stream whose {@code endpoint} event names where to POST, on the same
 * origin only). {@link #kind} says which one a transport ended up speaking.
 *
 * <p>Every request carries the configured {@code headers} (never logged, blanked out of error
 * excerpts: they carry tokens), may reach any address ({@code Egress.any()}: the operator named the
 * URL), and connects within {@code connectTimeout}. A request's own deadline is the SDK client's
 * {@code requestTimeout}; a {@code notifications/cancelled} sent through the transport also ends the
 * POST still waiting for the request it names. Closing cancels whatever is in flight.
 *
 * <p>Threading: stateless; each transport is thread-safe and runs its exchanges on virtual threads of
 * its own. Lifecycle: a transport lives until {@code closeGracefully()} (or {@code close()}).
 */
public final class HttpTransports {
    private HttpTransports() { }

    /**
     * A transport to the MCP server at {@code url}; nothing is sent before the SDK's first message.
     *
     * @param http           the host's outbound client
     * @param url            an absolute {@code http:} or {@code https:} URL
     * @param headers        sent on every request, in this map's order
     * @param connectTimeout time allowed to connect to the server, per request
     * @param json           the SDK's mapper, for the messages
     */
    public static McpClientTransport open(OutboundHttp http, URI url, Map<String, String> headers,
                                          Duration connectTimeout, McpJsonMapper json) {
        requireNonNull(url, "url");
        var scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null)
            throw new IllegalArgumentException("an MCP server url must be an absolute http or https URL: "
                    + (url.getHost() == null ? "(no host)" : HttpTarget.describe(url)));
        requireNonNull(connectTimeout, "connectTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero())
            throw new IllegalArgumentException("connectTimeout must be positive");
        return new McpHttpTransport(new HttpTarget(http, url, headers, connectTimeout), new Messages(json));
    }

    /**
     * {@code "http"} for streamable HTTP (also before the first message), {@code "sse"} once the
     * transport fell back to HTTP+SSE.
     *
     * @throws IllegalArgumentException if {@code transport} was not made by {@link #open}
     */
    public static String kind(McpClientTransport transport) {
        if (transport instanceof McpHttpTransport t) return t.kind();
        throw new IllegalArgumentException("not an HTTP transport of HttpTransports: " + transport.getClass().getName());
    }
}
