package dev.caduceus.plugin.openai;

import java.net.URI;
import java.util.Locale;

/**
 * Where a connection goes: scheme, host and port. The key of the connection pool, since only a
 * connection to the same origin can carry another request.
 *
 * @param secure whether the scheme is {@code https}
 * @param host   the host as written in the URI ({@code [::1]} keeps its brackets)
 * @param port   the explicit port, or the scheme's default
 */
record Origin(boolean secure, String host, int port) {
    /** The origin of an {@code http} or {@code https} URI. */
    static Origin of(URI uri) {
        var scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https"))
            throw new IllegalArgumentException("Only http and https URLs are supported: " + uri);
        if (uri.getHost() == null) throw new IllegalArgumentException("URL has no host: " + uri);
        boolean secure = scheme.equals("https");
        int port = uri.getPort() >= 0 ? uri.getPort() : secure ? 443 : 80;
        return new Origin(secure, uri.getHost(), port);
    }

    /** The host to resolve and to verify the certificate against (an IPv6 literal without brackets). */
    String hostName() {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** Whether the host is an IP literal, which TLS must not send as SNI. */
    boolean ipLiteral() {
        return host.startsWith("[") || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    /** The {@code Host} header value: the port only when it is not the scheme's default. */
    String authority() {
        return port == (secure ? 443 : 80) ? host : host + ":" + port;
    }
}
