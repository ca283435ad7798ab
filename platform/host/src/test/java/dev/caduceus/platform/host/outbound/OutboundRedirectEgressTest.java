package dev.caduceus.platform.host.outbound;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.TestServers.Kind;
import dev.caduceus.platform.host.outbound.TestServers.Route;
import dev.caduceus.platform.host.outbound.TestServers.Seen;
import dev.caduceus.platform.host.outbound.TestServers.Upstream;
import dev.caduceus.spi.outbound.OutboundHttp.Egress;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import dev.caduceus.spi.outbound.OutboundHttp.Request;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redirects and the egress guard, on real upstreams and a scripted name lookup.
 *
 * <p>How public-only is tested on a machine where everything is loopback: two upstreams listen on
 * the same port, one on 127.0.0.2 ("the internet") and one on 127.0.0.1 ("the internal service").
 * The client is built with {@code OutboundClient}'s package-private test constructor, whose policy is
 * the production {@link EgressPolicy} with exactly one change: 127.0.0.2 counts as public
 * ({@link EgressPolicy#treatingAsPublic}). Everything else — the resolver hook, the per-hop check,
 * the refusal of 127.0.0.1 — is the production path. The lookup answers bare addresses, as a DNS
 * server would, for made-up names: {@code public.test} and {@code other-public.test} (127.0.0.2),
 * {@code private.test} (127.0.0.1), and {@code rebind.test}, which answers 127.0.0.2 the first time
 * and 127.0.0.1 after (DNS rebinding). Each refusal is checked against a control with
 * {@link Egress#any()} that reaches the internal upstream, so the refusal is the guard's doing.
 */
class OutboundRedirectEgressTest {
    private static final InetAddress PUBLIC = address(127, 0, 0, 2);
    private static final InetAddress PRIVATE = address(127, 0, 0, 1);
    private static final Egress PUBLIC_ONLY = Egress.publicOnly(List.of());

    private static Upstream internet;
    private static Upstream internal;
    private static int port;
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private OutboundClient client;

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @BeforeAll
    static void upstreams() throws Exception {
        // the same port on both addresses, so a name that changes its answer reaches the other upstream
        for (int attempt = 0; internal == null; attempt++) {
            internet = Upstream.start(PUBLIC.getHostAddress(), 0, Kind.HTTP1, null, OutboundRedirectEgressTest::internet);
            try {
                internal = Upstream.start(PRIVATE.getHostAddress(), internet.port(), Kind.HTTP1, null,
                        (request, response, callback) -> text(response, callback, "internal"));
            } catch (IOException e) {
                internet.close();
                if (attempt == 4) throw e;
            }
        }
        port = internet.port();
    }

    private static boolean internet(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
                                    org.eclipse.jetty.util.Callback callback) throws Exception {
        var path = org.eclipse.jetty.server.Request.getPathInContext(request);
        if (path.startsWith("/post-")) return redirect(response, callback, Integer.parseInt(path.substring(6)), "/landing");
        return switch (path) {
            case "/to-private" -> redirect(response, callback, 302, "/to-private-2");
            case "/to-private-2" -> redirect(response, callback, 301, "http://private.test:" + port + "/secret");
            case "/to-literal" -> redirect(response, callback, 307, "http://127.0.0.1:" + port + "/secret");
            case "/to-other" -> redirect(response, callback, 302, "http://other-public.test:" + port + "/landing");
            case "/same-origin" -> redirect(response, callback, 308, "/landing");
            case "/loop" -> redirect(response, callback, 302, "/loop");
            case "/rebind" -> {
                response.getHeaders().put(HttpHeader.CONNECTION, "close"); // the next request needs a new connection
                yield text(response, callback, "internet");
            }
            default -> text(response, callback, "landed " + Content.Source.asString(request, UTF_8));
        };
    }

    private static boolean redirect(org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback,
                                    int status, String location) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.LOCATION, location);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
        callback.succeeded();
        return true;
    }

    private static boolean text(org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback,
                                String text) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
        Content.Sink.write(response, true, text, callback);
        return true;
    }

    @AfterAll
    static void stopUpstreams() throws Exception {
        internet.close();
        internal.close();
    }

    @BeforeEach
    void client() {
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test", this::lookup,
                egress -> EgressPolicy.of(egress).treatingAsPublic(Set.of(PUBLIC)));
    }

    @AfterEach
    void stop() {
        client.close();
    }

    private InetAddress[] lookup(String host) throws UnknownHostException {
        int n = lookups.computeIfAbsent(host, h -> new AtomicInteger()).getAndIncrement();
        return switch (host) {
            case "public.test", "other-public.test" -> new InetAddress[] {PUBLIC};
            case "private.test" -> new InetAddress[] {PRIVATE};
            case "mixed.test" -> new InetAddress[] {PRIVATE, PUBLIC};
            case "fallback.test" -> new InetAddress[] {address(127, 0, 0, 9), PUBLIC}; // nothing listens on .9
            case "rebind.test", "rebind-control.test" -> new InetAddress[] {n == 0 ? PUBLIC : PRIVATE};
            default -> {
                if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) throw new UnknownHostException(host); // never a DNS query
                yield new InetAddress[] {InetAddress.getByName(host)};
            }
        };
    }

    private static URI on(String host, String path) {
        return URI.create("http://" + host + ":" + port + path);
    }

    private static List<String> paths(Upstream upstream) {
        return upstream.seen().stream().map(Seen::path).toList();
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void aRedirectedPostIsNeverReSentAndTheErrorNamesStatusAndLocation(int status) {
        int before = internet.requests();
        var failure = assertThrows(Failure.class, () -> client.send(
                Request.post(on("public.test", "/post-" + status), "text/plain", "once".getBytes(UTF_8))));
        assertEquals(Failure.Kind.REDIRECT, failure.kind());
        assertTrue(failure.getMessage().contains(String.valueOf(status)), failure.getMessage());
        assertTrue(failure.getMessage().contains("Location: /landing"), failure.getMessage());
        assertTrue(failure.requestSent());
        assertEquals(before + 1, internet.requests(), "the upstream saw exactly one request");
        assertEquals("/post-" + status, internet.seen().getLast().path());
    }

    @Test
    void aGetFollowsRedirectsWithThePolicyCheckedAtEveryHop() throws Exception {
        try (var r = client.send(Request.get(on("public.test", "/to-other")).withEgress(PUBLIC_ONLY)
                .withHeader("Authorization", "Bearer secret"))) {
            assertEquals(200, r.status());
            assertEquals("landed ", r.text(100));
            assertEquals(on("other-public.test", "/landing"), r.uri());
        }
        var landing = internet.seen().getLast();
        assertEquals("other-public.test:" + port, landing.header("Host"));
        assertNull(landing.header("Authorization"), "credentials stay with their origin");
        assertEquals(1, lookups.get("other-public.test").get(), "the hop's name was resolved (and checked)");

        try (var r = client.send(Request.get(on("public.test", "/same-origin")).withEgress(PUBLIC_ONLY)
                .withHeader("Authorization", "Bearer secret"))) {
            assertEquals(200, r.status());
        }
        assertEquals("Bearer secret", internet.seen().getLast().header("Authorization"), "kept on the same origin");
    }

    @Test
    void aRedirectChainToAPrivateAddressIsRefusedAtTheHop() throws Exception {
        int reached = internal.requests();
        var failure = assertThrows(Failure.class,
                () -> client.send(Request.get(on("public.test", "/to-private")).withEgress(PUBLIC_ONLY)));
        assertEquals(Failure.Kind.REFUSED, failure.kind(), failure.toString());
        assertTrue(failure.getMessage().contains("private.test"), failure.getMessage());
        var literal = assertThrows(Failure.class,
                () -> client.send(Request.get(on("public.test", "/to-literal")).withEgress(PUBLIC_ONLY)));
        assertEquals(Failure.Kind.REFUSED, literal.kind(), literal.toString());
        assertEquals(reached, internal.requests(), "nothing reached the internal upstream");
        assertTrue(paths(internet).containsAll(List.of("/to-private", "/to-private-2", "/to-literal")),
                paths(internet).toString());

        // the control: without the guard the same chain does lead to the internal upstream
        try (var r = client.send(Request.get(on("public.test", "/to-private")))) {
            assertEquals("internal", r.text(100));
        }
        assertEquals("/secret", internal.seen().getLast().path());
    }

    @Test
    void moreThanFiveRedirectsIsARedirectFailure() {
        int before = internet.requests();
        var failure = assertThrows(Failure.class, () -> client.send(Request.get(on("public.test", "/loop"))));
        assertEquals(Failure.Kind.REDIRECT, failure.kind());
        assertTrue(failure.getMessage().contains("More than 5 redirects"), failure.getMessage());
        assertEquals(before + 6, internet.requests(), "the first request and five hops");
    }

    @Test
    void aRedirectIsReturnedAsIsWhenTheCallerDoesNotFollow() throws Exception {
        try (var r = client.send(Request.get(on("public.test", "/loop")).withFollowRedirects(false))) {
            assertEquals(302, r.status());
            assertEquals("/loop", r.header("Location").orElseThrow());
        }
    }

    @Test
    void aNameThatResolvesFirstToAPublicThenToALoopbackAddressIsRefusedAtConnect() throws Exception {
        int reached = internal.requests();
        try (var r = client.send(Request.get(on("rebind.test", "/rebind")).withEgress(PUBLIC_ONLY))) {
            assertEquals("internet", r.text(100));
        }
        var failure = assertThrows(Failure.class,
                () -> client.send(Request.get(on("rebind.test", "/rebind")).withEgress(PUBLIC_ONLY)));
        assertEquals(Failure.Kind.REFUSED, failure.kind(), failure.toString());
        assertEquals("Blocked: rebind.test resolves only to private or internal network addresses", failure.getMessage());
        assertFalse(failure.requestSent());
        assertEquals(2, lookups.get("rebind.test").get(), "each connection resolves, and checks, the name again");
        assertEquals(reached, internal.requests());

        // the control: the second answer does lead to the internal upstream when nothing guards it
        try (var r = client.send(Request.get(on("rebind-control.test", "/rebind")))) {
            assertEquals("internet", r.text(100));
        }
        try (var r = client.send(Request.get(on("rebind-control.test", "/rebind")))) {
            assertEquals("internal", r.text(100));
        }
    }

    @Test
    void internalAddressesOfANameAreDroppedAndTheRestTriedInOrder() throws Exception {
        int reached = internal.requests();
        try (var r = client.send(Request.get(on("mixed.test", "/landing")).withEgress(PUBLIC_ONLY))) {
            assertEquals("landed ", r.text(100), "the internal address is skipped, the public one used");
        }
        assertEquals(reached, internal.requests());
        try (var r = client.send(Request.get(on("fallback.test", "/landing")))) {
            assertEquals("landed ", r.text(100), "an address that refuses the connection is followed by the next");
        }
    }
}
