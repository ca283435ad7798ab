package dev.caduceus.platform.host.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProxyRulesTest {

    private static Optional<String> proxyFor(Map<String, String> env, String target) {
        return ProxyRules.fromEnvironment(env).forTarget(URI.create(target)).map(ProxyRules.Proxy::toString);
    }

    @Test
    void eachSchemeHasItsVariableAndAllProxyIsTheFallback() {
        var env = Map.of("HTTPS_PROXY", "http://secure.proxy:3128", "http_proxy", "plain.proxy:8080",
                "ALL_PROXY", "http://all.proxy");
        assertEquals(Optional.of("http://secure.proxy:3128"), proxyFor(env, "https://api.openai.com/v1"));
        assertEquals(Optional.of("http://plain.proxy:8080"), proxyFor(env, "http://example.com/"));
        assertEquals(Optional.of("http://all.proxy:80"), proxyFor(Map.of("all_proxy", "http://all.proxy"), "https://x.test/"));
        assertEquals(Optional.empty(), proxyFor(Map.of(), "https://x.test/"));
        assertEquals(Optional.empty(), proxyFor(Map.of("HTTPS_PROXY", "  "), "https://x.test/"), "blank is unset");
    }

    @Test
    void lowerCaseWinsOverUpperCase() {
        var env = Map.of("https_proxy", "http://lower:1", "HTTPS_PROXY", "http://upper:2");
        assertEquals(Optional.of("http://lower:1"), proxyFor(env, "https://x.test/"));
    }

    @Test
    void credentialsArePercentDecodedAndNeverShown() {
        var rules = ProxyRules.fromEnvironment(Map.of("HTTPS_PROXY", "http://al%40ice:p%3Ass+w@proxy.corp:3128"));
        var proxy = rules.https().orElseThrow();
        assertEquals(Optional.of("al@ice"), proxy.user());
        assertEquals(Optional.of("p:ss+w"), proxy.password());
        assertEquals("http://al@ice:****@proxy.corp:3128", proxy.toString());
        assertFalse(rules.toString().contains("p:ss"), rules.toString());
        assertEquals(443, ProxyRules.fromEnvironment(Map.of("HTTPS_PROXY", "https://p.corp")).https().orElseThrow().port());
    }

    @Test
    void noProxyBypassesByNameSuffixAddressBlockAndPort() {
        var env = Map.of("HTTPS_PROXY", "http://proxy:3128", "HTTP_PROXY", "http://proxy:3128",
                "NO_PROXY", "localhost, .internal.corp,example.com, 10.0.0.0/8,  192.168.1.7, [fd00::1], ::1/128, svc:8443");
        for (var direct : new String[] {"http://localhost:8642/", "https://a.internal.corp/", "https://internal.corp/",
                "https://example.com/", "https://api.example.com/", "http://10.20.30.40/", "http://192.168.1.7:9/",
                "http://[fd00::1]/", "http://[::1]:80/", "https://svc:8443/", "https://API.EXAMPLE.COM./"})
            assertEquals(Optional.empty(), proxyFor(env, direct), direct);
        for (var proxied : new String[] {"https://notexample.com/", "https://example.com.evil.test/", "http://11.0.0.1/",
                "http://192.168.1.8/", "https://svc/", "http://[fd00::2]/"})
            assertEquals(Optional.of("http://proxy:3128"), proxyFor(env, proxied), proxied);
    }

    @Test
    void aStarBypassesEverything() {
        assertEquals(Optional.empty(), proxyFor(Map.of("HTTPS_PROXY", "http://p:1", "no_proxy", "*"), "https://anything.test/"));
        assertTrue(NoProxy.parse("*").matches("anything", 1));
    }

    @Test
    void malformedValuesNameTheirVariable() {
        var scheme = assertThrows(IllegalArgumentException.class,
                () -> ProxyRules.fromEnvironment(Map.of("HTTPS_PROXY", "socks5://p:1080")));
        assertEquals("HTTPS_PROXY: proxy scheme socks5 is not supported (http or https)", scheme.getMessage());
        var block = assertThrows(IllegalArgumentException.class,
                () -> ProxyRules.fromEnvironment(Map.of("no_proxy", "10.0.0.0/33")));
        assertEquals("no_proxy: NO_PROXY entry 10.0.0.0/33: the prefix length is out of range", block.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NoProxy.parse("host:http"));
    }

    @Test
    void namesAreNeverResolved() {
        // 999.1.1.1 is no address literal: compared as a name, without a DNS lookup
        assertTrue(NoProxy.parse("999.1.1.1").matches("999.1.1.1", 80));
        assertFalse(NoProxy.parse("10.0.0.0/8").matches("ten.example", 80));
    }
}
