package dev.caduceus.plugin.mcp.http;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Request;
import dev.caduceus.spi.outbound.OutboundHttp.Response;
import io.modelcontextprotocol.spec.McpTransportException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One configured MCP server URL and how every request to it is built: the configured headers on each
 * (they carry tokens, so they are never logged and their values are blanked out of error excerpts),
 * {@link Egress#any()} (the operator named the URL), the configured connect timeout, SSE lines up to
 * {@link #MAX_MESSAGE_BYTES}. Also the one place that words HTTP failures for the SDK. Immutable,
 * thread-safe.
 */
final class HttpTarget {
    /** The longest single message read, as a JSON body or as one event's data. */
    static final int MAX_MESSAGE_BYTES = 16 << 20;
    /** The longest silence while a request is being answered, or on the older transport's event stream. */
    static final Duration MESSAGE_IDLE = Duration.ofHours(1);
    /** The longest silence on the streamable server stream (GET) before it is re-opened. */
    static final Duration LISTEN_IDLE = Duration.ofMinutes(5);
    /** The whole time a closing DELETE may take. */
    static final Duration CLOSE_TOTAL = Duration.ofSeconds(5);

    private static final int EXCERPT_CHARS = 200;

    private final OutboundHttp http;
    private final URI url;
    private final List<Map.Entry<String, String>> headers;
    private final Duration connectTimeout;
    private final List<String> secrets;

    HttpTarget(OutboundHttp http, URI url, Map<String, String> headers, Duration connectTimeout) {
        this.http = requireNonNull(http, "http");
        this.url = requireNonNull(url, "url");
        this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout");
        this.headers = List.copyOf(requireNonNull(headers, "headers").entrySet());
        var values = new ArrayList<String>();
        for (var h : this.headers) {
            if (h.getValue().length() >= 4) values.add(h.getValue());
            for (var word : h.getValue().split("\\s+")) // "Bearer TOKEN": the token alone too, not the scheme
                if (word.length() >= 8) values.add(word);
        }
        this.secrets = values.stream().distinct().sorted((a, b) -> b.length() - a.length()).toList();
    }

    OutboundHttp http() {
        return http;
    }

    URI url() {
        return url;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    /** A request to {@code uri} with the configured headers, egress and connect timeout, and {@code idle}. */
    Request request(String method, URI uri, Duration idle) {
        var request = Request.of(method, uri).withEgress(Egress.any()).withTimeouts(connectTimeout, idle, null)
                .withMaxLineBytes(MAX_MESSAGE_BYTES);
        for (var h : headers) request = request.withHeader(h.getKey(), h.getValue());
        return request;
    }

    /** The configured URL as it may appear in a message or a log: scheme, host, port and path. */
    String describe() {
        return describe(url);
    }

    /** {@code uri} without its query (it may carry a key) and user info. */
    static String describe(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /** The error for a non-success answer to {@code what}: the status and a short, redacted body excerpt. */
    McpHttpException refused(Response response, String what) {
        int status = response.status();
        var excerpt = excerpt(response);
        var hint = status == 401 || status == 403 ? " (check the credentials in this server's headers)" : "";
        return new McpHttpException(status, "MCP server " + describe() + " answered " + what + " with HTTP " + status
                + hint + (excerpt.isEmpty() ? "" : ": " + excerpt));
    }

    /** The error for an exchange that failed on the wire. */
    McpTransportException failed(Failure failure, String what) {
        return new McpTransportException("MCP server " + describe() + ": " + what + " failed: " + failure.getMessage(),
                failure);
    }

    /** At most {@value #EXCERPT_CHARS} characters of the body, one line, configured header values blanked. */
    String excerpt(Response response) {
        String text;
        try {
            text = response.text(4096);
        } catch (Failure e) {
            return "";
        }
        return redact(text.replaceAll("\\s+", " ").strip());
    }

    String redact(String text) {
        for (var secret : secrets) text = text.replace(secret, "[redacted]");
        return text.length() <= EXCERPT_CHARS ? text : text.substring(0, EXCERPT_CHARS) + "…";
    }

    /** Whether {@code other} has this URL's scheme, host and port. */
    boolean sameOrigin(URI other) {
        return other.getScheme() != null && other.getHost() != null
                && url.getScheme().equalsIgnoreCase(other.getScheme()) && url.getHost().equalsIgnoreCase(other.getHost())
                && port(url) == port(other);
    }

    private static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : uri.getScheme().toLowerCase(Locale.ROOT).equals("https") ? 443 : 80;
    }
}
