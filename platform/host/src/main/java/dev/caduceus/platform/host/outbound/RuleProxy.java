package dev.caduceus.platform.host.outbound;

import java.net.URI;
import java.util.Objects;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpProxy;
import org.eclipse.jetty.client.Origin;
import org.eclipse.jetty.client.BasicAuthentication;
import org.eclipse.jetty.http.HttpHeader;

/**
 * One proxy of the {@link ProxyRules} as Jetty sees it: it serves exactly the origins the rules send
 * to it (so {@code NO_PROXY} and the per-scheme choice are the rules', not Jetty's address lists);
 * {@code https} targets go through a {@code CONNECT} tunnel, {@code http} ones as absolute-URI
 * requests. Credentials from the proxy URL's userinfo are sent preemptively as {@code
 * Proxy-Authorization: Basic}. Immutable.
 */
final class RuleProxy extends HttpProxy {
    private final ProxyRules rules;
    private final ProxyRules.Proxy proxy;

    private RuleProxy(ProxyRules rules, ProxyRules.Proxy proxy) {
        super(new Origin.Address(proxy.host(), proxy.port()), proxy.scheme().equals("https"));
        this.rules = rules;
        this.proxy = proxy;
    }

    /** Adds the rules' proxies to {@code client}, with their credentials. */
    static void install(HttpClient client, ProxyRules rules) {
        var seen = new java.util.ArrayList<ProxyRules.Proxy>();
        for (var proxy : java.util.stream.Stream.of(rules.https(), rules.http()).flatMap(java.util.Optional::stream).toList()) {
            if (seen.contains(proxy)) continue;
            seen.add(proxy);
            var jetty = new RuleProxy(rules, proxy);
            client.getProxyConfiguration().addProxy(jetty);
            if (proxy.user().isPresent())
                client.getAuthenticationStore().addAuthenticationResult(new BasicAuthentication.BasicResult(
                        jetty.getURI(), HttpHeader.PROXY_AUTHORIZATION, proxy.user().get(), proxy.password().orElse("")));
        }
    }

    /**
     * Whether {@code origin} goes through this proxy. Never for a proxy's own address: Jetty opens the
     * connection that carries a {@code CONNECT} as a destination of the proxy's origin, and when the
     * rules proxy that origin too (HTTP_PROXY and HTTPS_PROXY naming the same proxy, the usual setup)
     * the CONNECT would itself be sent through the proxy, in absolute form, to the proxy.
     */
    @Override
    public boolean matches(Origin origin) {
        if (isProxy(rules.http(), origin) || isProxy(rules.https(), origin)) return false;
        var target = URI.create(origin.getScheme() + "://" + hostForUri(origin.getAddress().getHost()) + ":"
                + origin.getAddress().getPort());
        return rules.forTarget(target).filter(p -> Objects.equals(p, proxy)).isPresent();
    }

    private static boolean isProxy(java.util.Optional<ProxyRules.Proxy> proxy, Origin origin) {
        return proxy.filter(p -> new Origin.Address(p.host(), p.port()).equals(origin.getAddress())).isPresent();
    }

    private static String hostForUri(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    @Override
    public String toString() {
        return "proxy " + proxy; // the rules' form never shows the password
    }
}
