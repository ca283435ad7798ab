package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.TestHost;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * web_extract on the real host whose outbound client resolves names with a scripted lookup
 * ({@link TestHost.Builder#nameLookup}): the answers a DNS server could give and this machine's resolver
 * cannot (DNS rebinding, a public-looking name that answers loopback, a lookup that hangs). Only the
 * lookup is scripted; the host's client, its egress policy and the plugin are the real ones. Everything
 * else web_extract does is {@link WebExtractToolTest}'s. The host's own side is {@code EgressPolicyTest},
 * {@code OutboundRedirectEgressTest} and {@code HangingLookupTest} in platform/host.
 */
class WebExtractResolverTest {
    private final List<TestHost> hosts = new ArrayList<>();
    private final TestCancellation cancellation = new TestCancellation();
    private FixtureServer server;

    @BeforeEach
    void start() throws Exception {
        server = new FixtureServer();
    }

    @AfterEach
    void stop() {
        WebTestSupport.closeAll(hosts);
        server.close();
    }

    /** A host with these {@code tools.*} settings whose names resolve with {@code lookup}, closed after the test. */
    private TestHost start(Map<String, String> toolsConfig, TestHost.NameLookup lookup) {
        var host = WebTestSupport.host(b -> b.nameLookup(lookup), toolsConfig);
        hosts.add(host);
        return host;
    }

    private static InetAddress literal(String address) {
        try {
            return InetAddress.getByName(address); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode extract(TestHost host, String... urls) throws Exception {
        var args = WebTestSupport.JSON.createObjectNode();
        var array = args.putArray("urls");
        for (var url : urls) array.add(url);
        return okJson(call(host, "web_extract", args.toString()));
    }

    /**
     * DNS rebinding: a name answers an allowed address for one connection and a refused one for the
     * next. The client looks it up for each connection and checks what that lookup answered, so the
     * second connection is refused at connect, after the first hop had reached the page's server.
     * (Run with private addresses allowed, so that the allowed answer can be the loopback fixture and
     * the refused one the metadata address: nothing leaves the machine.)
     */
    @Test
    void aNameThatRebindsIsRefusedAtTheConnectThatUsesTheNewAddress() throws Exception {
        try (var other = new FixtureServer()) {
            var lookups = new AtomicInteger();
            var host = start(Map.of("web.allow_private_addresses", "true"), name -> {
                if (!name.equals("rebind.test")) throw new UnknownHostException(name);
                return new InetAddress[] {literal(lookups.getAndIncrement() == 0 ? "127.0.0.1" : "169.254.169.254")};
            });
            var url = "http://rebind.test:" + server.port() + "/redirect?to=http://rebind.test:" + other.port() + "/plain";
            var error = extract(host, url).path("results").get(0).path("error").asText();
            assertEquals("Blocked: rebind.test resolves only to cloud metadata addresses", error);
            assertEquals(2, lookups.get(), "one lookup per connection, none of the plugin's own");
            assertEquals(1, server.seen.size(), "the first hop reached its server: " + server.seen);
            assertTrue(other.seen.isEmpty(), "the rebound hop reached nothing: " + other.seen);
        }
    }

    /**
     * The strict policy (the default settings): a name whose every answer is loopback is refused at
     * connect, and the lookup is the client's own (once, for the connection), so there is no earlier
     * check a second answer could pass by.
     */
    @Test
    void aPublicLookingNameThatResolvesToLoopbackIsRefusedAtConnect() throws Exception {
        var lookups = new AtomicInteger();
        var strict = start(Map.of(), name -> {
            lookups.incrementAndGet();
            return new InetAddress[] {literal("127.0.0.1"), literal("::ffff:127.0.0.1"), literal("::1")};
        });
        var error = extract(strict, "http://www.public.test:" + server.port() + "/article").path("results").get(0)
                .path("error").asText();
        assertEquals("Blocked: www.public.test resolves only to private or internal network addresses", error);
        assertEquals(1, lookups.get());
        assertTrue(server.seen.isEmpty(), "nothing may reach the server: " + server.seen);
    }

    /**
     * A DNS server that never answers: the lookup holds one of the client's threads, not the call, so
     * the page's timeout ends the call, and a cancel ends it at once, long before its timeout.
     */
    @Test
    void aLookupThatHangsEndsAtTheTimeoutAndACancelEndsItAtOnce() throws Exception {
        var release = new CountDownLatch(1);
        var started = new CountDownLatch(2);
        TestHost.NameLookup hanging = name -> {
            started.countDown();
            try {
                release.await(1, TimeUnit.MINUTES); // a DNS server that never answers
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(name);
        };
        try {
            var quick = start(Map.of("web.extract.timeout_seconds", "1"), hanging);
            var result = extract(quick, "http://slow-dns.test/"); // only the timeout ends it
            assertEquals("Timed out after 1 s", result.path("results").get(0).path("error").asText());
            var patient = start(Map.of("web.extract.timeout_seconds", "30"), hanging);
            var pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return call(patient, "web_extract", "{\"urls\": [\"http://slow-dns-2.test/\"]}", cancellation);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTrue(started.await(5, TimeUnit.SECONDS), "the second lookup is under way");
            cancellation.cancel();
            assertEquals(PrettyJson.INTERRUPTED, okText(pending.get(5, TimeUnit.SECONDS))); // well inside the 30 s
        } finally {
            release.countDown();
        }
    }
}
