package dev.caduceus.platform.host.outbound;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which proxy an outbound request goes through, read from the environment as curl, Python and Go
 * read it: {@code HTTPS_PROXY} for https targets, {@code HTTP_PROXY} for http targets,
 * {@code ALL_PROXY} for either when the specific one is unset, each in lower or upper case (lower case
 * wins when both are set), and {@code NO_PROXY} for the hosts that go direct ({@link NoProxy}). A
 * proxy is written {@code [http://|https://][user:password@]host[:port]}; without a scheme it is
 * {@code http://}, without a port 80 (443 for {@code https://}); credentials are percent-decoded.
 * Empty values count as unset. Immutable; {@link #toString()} never shows a password.
 */
public record ProxyRules(Optional<Proxy> http, Optional<Proxy> https, NoProxy noProxy) {

    /** One proxy. {@link #toString()} shows the user but never the password. */
    public record Proxy(String scheme, String host, int port, Optional<String> user, Optional<String> password) {
        @Override
        public String toString() {
            return scheme + "://" + user.map(u -> u + (password.isPresent() ? ":****" : "") + "@").orElse("") + host + ":" + port;
        }
    }

    /** No proxy for anything. */
    public static ProxyRules direct() {
        return new ProxyRules(Optional.empty(), Optional.empty(), NoProxy.none());
    }

    /** The rules {@code env} sets; a malformed value throws {@link IllegalArgumentException} naming the variable. */
    public static ProxyRules fromEnvironment(Map<String, String> env) {
        var all = variable(env, "all_proxy");
        var http = variable(env, "http_proxy").or(() -> all);
        var https = variable(env, "https_proxy").or(() -> all);
        var noProxy = variable(env, "no_proxy").map(v -> {
            try {
                return NoProxy.parse(v.value());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(v.name() + ": " + e.getMessage(), e);
            }
        }).orElse(NoProxy.none());
        return new ProxyRules(http.map(v -> parse(v.value(), v.name())), https.map(v -> parse(v.value(), v.name())), noProxy);
    }

    /**
     * The rules of the {@code http} config section over the environment, field by field: {@code
     * proxy.url} (both schemes), {@code proxy.https_url} (https targets), {@code proxy.no_proxy}; what
     * the section leaves unset comes from the variables. Throws {@link IllegalArgumentException}
     * naming the key or variable that is malformed.
     */
    public static ProxyRules from(dev.caduceus.spi.config.PluginConfig http, Map<String, String> env) {
        var merged = new java.util.HashMap<>(env);
        var url = http.string("proxy.url").filter(v -> !v.isBlank());
        var httpsUrl = http.string("proxy.https_url").filter(v -> !v.isBlank()).or(() -> url);
        var noProxy = http.list("proxy.no_proxy", null);
        url.ifPresent(v -> {
            merged.put("http_proxy", v);
            merged.put("HTTP_PROXY", v);
        });
        httpsUrl.ifPresent(v -> {
            merged.put("https_proxy", v);
            merged.put("HTTPS_PROXY", v);
        });
        if (noProxy != null) {
            merged.put("no_proxy", String.join(",", noProxy));
            merged.put("NO_PROXY", String.join(",", noProxy));
        }
        try {
            return fromEnvironment(merged);
        } catch (IllegalArgumentException e) {
            var message = e.getMessage();
            if (url.isPresent()) message = message.replaceFirst("^(?i)http_proxy", "http.proxy.url");
            throw new IllegalArgumentException(message, e);
        }
    }

    /** The proxy for {@code target} ({@code http} or {@code https}), or empty to connect directly. */
    public Optional<Proxy> forTarget(URI target) {
        var scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
        var proxy = switch (scheme) {
            case "https", "wss" -> https;
            case "http", "ws" -> http;
            default -> Optional.<Proxy>empty();
        };
        if (proxy.isEmpty() || target.getHost() == null) return Optional.empty();
        int port = target.getPort() >= 0 ? target.getPort() : scheme.startsWith("https") || scheme.equals("wss") ? 443 : 80;
        return noProxy.matches(target.getHost(), port) ? Optional.empty() : proxy;
    }

    private record Variable(String name, String value) {}

    private static Optional<Variable> variable(Map<String, String> env, String lower) {
        for (var name : new String[] {lower, lower.toUpperCase(Locale.ROOT)}) {
            var value = env.get(name);
            if (value != null && !value.isBlank()) return Optional.of(new Variable(name, value.strip()));
        }
        return Optional.empty();
    }

    private static Proxy parse(String value, String variable) {
        var text = value.contains("://") ? value : "http://" + value;
        URI uri;
        try {
            uri = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(variable + " is not a proxy URL (scheme://[user:password@]host[:port])");
        }
        var scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https"))
            throw new IllegalArgumentException(variable + ": proxy scheme " + scheme + " is not supported (http or https)");
        if (uri.getHost() == null || uri.getHost().isBlank())
            throw new IllegalArgumentException(variable + " names no proxy host");
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        var info = uri.getRawUserInfo();
        if (info != null && !info.isEmpty()) {
            int colon = info.indexOf(':');
            user = Optional.of(decode(colon < 0 ? info : info.substring(0, colon)));
            if (colon >= 0) password = Optional.of(decode(info.substring(colon + 1)));
        }
        return new Proxy(scheme, uri.getHost(), port, user, password);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
