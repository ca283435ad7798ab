package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupportUnit.call;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static dev.caduceus.plugin.web.WebTestSupportUnit.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.host.outbound.GuardedResolver;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.Eventually;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * web_extract with the host's outbound client on a scripted name lookup: what the real host cannot
 * show, since it resolves names with the system's resolver (DNS rebinding, a public-looking name that
 * answers loopback, a lookup that hangs). Builds the tool by hand on {@code FakePlatformContext}
 * (WebTestSupportUnit); everything else web_extract does is tested on the real host
 * ({@link WebExtractToolTest}). The host's own side is {@code EgressPolicyTest},
 * {@code OutboundRedirectEgressTest} and {@code HangingLookupTest} in platform/host.
 */
class WebExtractResolverTest {
    @TempDir Path workspace;
    private final WebPlugin plugin = new WebPlugin();
    private FixtureServer server;
    private TestToolContext ctx;
    private final List<OutboundClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new FixtureServer();
        ctx = new TestToolContext(workspace);
    }

    @AfterEach
    void stop() {
        clients.forEach(OutboundClient::close);
        server.close();
    }

    /** A host outbound client with {@code proxies} and a scripted name lookup, closed after the test. */
    private OutboundClient client(ProxyRules proxies, GuardedResolver.Lookup lookup) {
        var made = new OutboundClient(proxies, "caduceus-test", lookup);
        clients.add(made);
        return made;
    }

    private static InetAddress literal(String address) {
        try {
            return InetAddress.getByName(address); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private JsonNode extract(Tool tool, String... urls) throws Exception {
        var args = WebTestSupport.JSON.createObjectNode();
        var array = args.putArray("urls");
        for (var url : urls) array.add(url);
        return okJson(call(tool, ctx, args.toString()));
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
            var rebinding = client(ProxyRules.direct(), host -> {
                if (!host.equals("rebind.test")) throw new UnknownHostException(host);
                return new InetAddress[] {literal(lookups.getAndIncrement() == 0 ? "127.0.0.1" : "169.254.169.254")};
            });
            var tool = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true"), rebinding);
            var url = "http://rebind.test:" + server.port() + "/redirect?to=http://rebind.test:" + other.port() + "/plain";
            var error = extract(tool, url).path("results").get(0).path("error").asText();
            assertEquals("Blocked: rebind.test resolves only to cloud metadata addresses", error);
            assertEquals(2, lookups.get(), "one lookup per connection, none of the plugin's own");
            assertEquals(1, server.seen.size(), "the first hop reached its server: " + server.seen);
            assertTrue(other.seen.isEmpty(), "the rebound hop reached nothing: " + other.seen);
        }
    }

    /**
     * The strict policy: a name whose every answer is loopback is refused at connect, and the lookup is
     * the client's own (once, for the connection), so there is no earlier check a second answer could
     * pass by.
     */
    @Test
    void aPublicLookingNameThatResolvesToLoopbackIsRefusedAtConnect() throws Exception {
        var lookups = new AtomicInteger();
        var loopback = client(ProxyRules.direct(), host -> {
            lookups.incrementAndGet();
            return new InetAddress[] {literal("127.0.0.1"), literal("::ffff:127.0.0.1"), literal("::1")};
        });
        var strict = tool(plugin, "web_extract", Map.of(), loopback);
        var error = extract(strict, "http://www.public.test:" + server.port() + "/article").path("results").get(0)
                .path("error").asText();
        assertEquals("Blocked: www.public.test resolves only to private or internal network addresses", error);
        assertEquals(1, lookups.get());
        assertTrue(server.seen.isEmpty(), "nothing may reach the server: " + server.seen);
    }

    @Test
    void aLookupThatHangsEndsAtTheTimeoutAndACancelEndsItAtOnce() throws Exception {
        var release = new java.util.concurrent.CountDownLatch(1);
        var started = new java.util.concurrent.CountDownLatch(2);
        var hanging = client(ProxyRules.direct(), host -> {
            started.countDown();
            try {
                release.await(1, TimeUnit.MINUTES); // a DNS server that never answers
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
        });
        try {
            var quick = tool(plugin, "web_extract", Map.of("web.extract.timeout_seconds", "1"), hanging);
            var result = extract(quick, "http://slow-dns.test/"); // only the timeout ends it
            assertEquals("Timed out after 1 s", result.path("results").get(0).path("error").asText());
            var patient = tool(plugin, "web_extract", Map.of("web.extract.timeout_seconds", "30"), hanging);
            var pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return call(patient, ctx, "{\"urls\": [\"http://slow-dns-2.test/\"]}");
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTrue(started.await(5, TimeUnit.SECONDS), "the second lookup is under way");
            ctx.cancellation.cancel();
            assertEquals(PrettyJson.INTERRUPTED, okText(pending.get(5, TimeUnit.SECONDS))); // well inside the 30 s
        } finally {
            release.countDown();
        }
    }
}
