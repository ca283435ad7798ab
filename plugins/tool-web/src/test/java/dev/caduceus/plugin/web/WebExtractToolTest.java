package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static dev.caduceus.plugin.web.WebTestSupport.tool;
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

class WebExtractToolTest {
    @TempDir Path workspace;
    private final WebPlugin plugin = new WebPlugin();
    private FixtureServer server;
    private TestToolContext ctx;
    private final List<OutboundClient> clients = new ArrayList<>();
    private OutboundClient client;
    private Tool local; // private addresses allowed, so it can reach the fixture server

    @BeforeEach
    void start() throws Exception {
        server = new FixtureServer();
        ctx = new TestToolContext(workspace);
        client = client(ProxyRules.direct(), InetAddress::getAllByName);
        local = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true",
                "web.blocked_hosts", "localhost", "web.extract.max_chars", "2000", "web.extract.max_bytes", "10000"),
                client);
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

    @Test
    void specIsHermesCompatible() {
        var spec = local.spec();
        assertEquals("web_extract", spec.name());
        assertEquals("web", spec.toolset());
        assertEquals("🌐", spec.emoji());
        assertTrue(spec.parallelSafe());
        assertEquals("{\"type\":\"object\",\"required\":[\"urls\"],\"properties\":{\"urls\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\"},\"maxItems\":5}}}", spec.parameters().toString());
        assertTrue(local.available());
    }

    @Test
    void htmlArticleBecomesMarkdown() throws Exception {
        var result = extract(local, server.url("/article")).path("results").get(0);
        assertEquals(server.url("/article"), result.path("url").asText());
        assertEquals("The Article", result.path("title").asText());
        assertTrue(result.path("error").isNull());
        var md = result.path("content").asText();
        assertTrue(md.startsWith("# Main heading\n\nFirst paragraph with a [relative link](" + server.url("/other")
                + ") and **bold** text.\n\n## Lists\n\n- one\n- two\n  1. nested"), md);
        assertTrue(md.contains("```\nint x = 1;\nint y = 2;\n```"), md);
        assertTrue(md.contains("| Name | Value |\n| --- | --- |\n| a | 1 |"), md);
        assertTrue(md.contains("![A picture](" + server.url("/pic.png") + ")"), md);
        for (var gone : new String[] {"secret", "color:red", "Home nav", "comment", "Related junk", "Footer junk",
                "Enable JS", "data:image", "Go"})
            assertFalse(md.contains(gone), gone + " should be dropped: " + md);
    }

    @Test
    void resultIsIndentedLikeHermes() throws Exception {
        var text = okText(call(local, ctx, "{\"urls\": [\"" + server.url("/plain") + "\"]}"));
        assertEquals("{\n  \"results\": [\n    {\n      \"url\": \"" + server.url("/plain") + "\",\n      \"title\": \"\",\n"
                + "      \"content\": \"just text\\n  kept   as is\",\n      \"error\": null\n    }\n  ]\n}", text);
    }

    @Test
    void aSingleStringIsWrappedAndOnlyFiveUrlsAreTaken() throws Exception {
        var one = okJson(call(local, ctx, "{\"urls\": \"" + server.url("/plain") + "\"}"));
        assertEquals(1, one.path("results").size());
        var url = server.url("/plain");
        assertEquals(5, extract(local, url, url, url, url, url, url, url).path("results").size());
    }

    @Test
    void longTextKeepsHeadAndTailAndSavesTheWhole() throws Exception {
        var content = extract(local, server.url("/long")).path("results").get(0).path("content").asText();
        var saved = TextWindow.savedFile(java.net.URI.create(server.url("/long")), workspace);
        assertTrue(saved.isAbsolute());
        assertTrue(saved.getFileName().toString().matches("127\\.0\\.0\\.1-[0-9a-f]{8}\\.md"), saved.toString());
        assertEquals("H".repeat(900) + "M".repeat(1000) + "T".repeat(300), Files.readString(saved));
        assertEquals("H".repeat(900) + "M".repeat(600) + "\n\n[... 200 chars omitted; full text saved to " + saved
                + " — read it with read_file using offset/limit ...]\n\n" + "M".repeat(200) + "T".repeat(300), content);
    }

    @Test
    void hugePageIsReadOnlyUpToMaxBytes() throws Exception {
        var result = extract(local, server.url("/huge")).path("results").get(0);
        assertTrue(result.path("error").isNull(), result.toString());
        var saved = Files.readString(TextWindow.savedFile(java.net.URI.create(server.url("/huge")), workspace));
        assertTrue(saved.length() <= 10_000 && saved.length() > 9_000, "kept " + saved.length());
    }

    @Test
    void slowPageTimesOut() throws Exception {
        var quick = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true",
                "web.extract.timeout_seconds", "1"), client);
        var result = extract(quick, server.url("/slow")); // the page never finishes: only the timeout ends the call
        assertEquals("Timed out after 1 s", result.path("results").get(0).path("error").asText());
        assertEquals("Content was inaccessible or not found", result.path("error").asText());
    }

    @Test
    void perUrlFailuresFillErrorAndLeaveContentEmpty() throws Exception {
        var results = extract(local, server.url("/missing"), server.url("/binary"), server.url("/loop"),
                server.url("/plain")).path("results");
        assertEquals("HTTP 404", results.get(0).path("error").asText());
        assertEquals("", results.get(0).path("content").asText());
        assertEquals("Unsupported content type: application/octet-stream", results.get(1).path("error").asText());
        assertTrue(results.get(2).path("error").asText().startsWith("More than 5 redirects from " + server.url("/loop")),
                results.get(2).toString());
        assertTrue(results.get(3).path("error").isNull());
    }

    @Test
    void redirectsAreFollowedAndEveryHopIsChecked() throws Exception {
        var results = extract(local, server.url("/hop"), server.url("/to-metadata"), server.url("/to-localhost"))
                .path("results");
        assertEquals("The Article", results.get(0).path("title").asText());
        assertEquals("Blocked: 169.254.169.254 is a cloud metadata address", results.get(1).path("error").asText());
        assertEquals("Blocked: host localhost is blocked by configuration", results.get(2).path("error").asText());
        assertEquals(1, server.seen.stream().filter(s -> s.uri().equals("/article")).count(), "only /hop reached /article");
    }

    @Test
    void defaultSettingsRefuseLoopbackPrivateMetadataAndOtherSchemes() throws Exception {
        var strict = tool(plugin, "web_extract", Map.of(), client);
        var results = extract(strict, server.url("/article"), "http://10.0.0.1/", "http://169.254.169.254/latest/",
                "http://[::1]:" + server.port() + "/article", "file:///etc/passwd").path("results");
        assertEquals("Blocked: 127.0.0.1 is a private or internal network address", results.get(0).path("error").asText());
        assertEquals("Blocked: 10.0.0.1 is a private or internal network address", results.get(1).path("error").asText());
        assertEquals("Blocked: 169.254.169.254 is a private or internal network address",
                results.get(2).path("error").asText());
        assertEquals("Blocked: ::1 is a private or internal network address", results.get(3).path("error").asText());
        assertEquals("Unsupported URL scheme: file", results.get(4).path("error").asText());
        var ftp = extract(strict, "ftp://example.com/x");
        assertEquals("Unsupported URL scheme: ftp", ftp.path("results").get(0).path("error").asText());
        assertTrue(server.seen.isEmpty(), "nothing may reach the server: " + server.seen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1/", "http://127.8.9.10:8080/x", "http://10.0.0.1/", "http://172.16.5.4/",
            "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://0.0.0.0/",
            "http://100.64.0.1/", "http://198.18.0.1/", "http://224.0.0.1/", "http://255.255.255.255/",
            "http://[fd00::1]/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/",
            "http://[::127.0.0.1]/", "http://[64:ff9b::a00:1]/", "http://[2002:7f00:1::]/", "https://[::]/",
            "http://[ff02::1]/", "http://localhost/", "http://metadata.google.internal/computeMetadata/v1/"})
    void internalAddressesAreRefusedByDefault(String url) throws Exception {
        var strict = tool(plugin, "web_extract", Map.of(), client);
        var error = extract(strict, url).path("results").get(0).path("error").asText();
        assertTrue(error.startsWith("Blocked: "), url + " -> " + error);
    }

    @Test
    void allowPrivateLiftsPrivateButNeverMetadata() throws Exception {
        var results = extract(local, "http://169.254.169.254/", "http://[fd00:ec2::254]/",
                "http://metadata.google.internal/", "http://[::ffff:169.254.169.254]/", server.url("/plain"))
                .path("results");
        for (int i = 0; i < 4; i++) {
            var error = results.get(i).path("error").asText();
            assertTrue(error.startsWith("Blocked: ") && error.contains("metadata"), error);
        }
        assertTrue(results.get(4).path("error").isNull(), "loopback is allowed: " + results.get(4));
    }

    @Test
    void blockedHostGlobsAreAlwaysRefused() throws Exception {
        var corp = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true",
                "web.blocked_hosts", "*.corp.example, localhost"), client(ProxyRules.direct(),
                host -> { throw new AssertionError("a blocked name is never looked up: " + host); }));
        var results = extract(corp, "http://wiki.corp.example/", "http://LOCALHOST.:" + server.port() + "/plain")
                .path("results");
        assertEquals("Blocked: host wiki.corp.example is blocked by configuration", results.get(0).path("error").asText());
        assertEquals("Blocked: host localhost is blocked by configuration", results.get(1).path("error").asText());
        assertTrue(server.seen.isEmpty());
    }

    @Test
    void anUnresolvableHostIsNamed() throws Exception {
        var strict = tool(plugin, "web_extract", Map.of(), client(ProxyRules.direct(),
                host -> { throw new UnknownHostException(host); }));
        var error = extract(strict, "http://nowhere.invalid/page").path("results").get(0).path("error").asText();
        assertEquals("Cannot resolve the host of http://nowhere.invalid/page", error);
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

    /**
     * A redirect chain from a public page to a private address, under the strict policy: the public
     * hops come through a forward proxy (the fixture server plays it, the only way a public page can be
     * served on loopback), and the hop to the private address is refused by the client before it is
     * sent, so neither the proxy nor anything else sees it.
     */
    @Test
    void aRedirectChainToAPrivateAddressIsRefusedAtTheHop() throws Exception {
        var proxied = client(ProxyRules.fromEnvironment(Map.of("HTTP_PROXY", "http://127.0.0.1:" + server.port())),
                host -> {
                    if (!host.equals("127.0.0.1")) throw new AssertionError("only the proxy is looked up: " + host);
                    return new InetAddress[] {literal(host)};
                });
        var strict = tool(plugin, "web_extract", Map.of(), proxied);
        var results = extract(strict, "http://www.public.test/chain", "http://www.public.test/chain-to-mapped")
                .path("results");
        assertEquals("Blocked: 10.20.30.40 is a private or internal network address", results.get(0).path("error").asText());
        assertEquals("Blocked: ::ffff:7f00:1 is a private or internal network address",
                results.get(1).path("error").asText());
        var uris = server.seen.stream().map(FixtureServer.Seen::uri).sorted().toList();
        assertEquals(List.of("http://www.public.test/chain", "http://www.public.test/chain-2",
                "http://www.public.test/chain-to-mapped"), uris);
    }

    @Test
    void wrongArgumentsAreErrorsNotExceptions() throws Exception {
        for (var args : new String[] {"{}", "{\"urls\": 5}", "{\"urls\": [1, 2]}", "{\"urls\": []}", "{\"urls\": null}"}) {
            var result = call(local, ctx, args);
            var error = assertInstanceOf(ToolResult.Error.class, result, args);
            assertTrue(error.message().startsWith("Error extracting content: "), error.message());
        }
        var bad = extract(local, "not a url at all");
        assertFalse(bad.path("results").get(0).path("error").isNull());
    }

    @Test
    void cancellationAbortsInFlightRequests() throws Exception {
        var patient = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true",
                "web.extract.timeout_seconds", "30"), client);
        var pending = CompletableFuture.supplyAsync(() -> {
            try {
                return call(patient, ctx, "{\"urls\": [\"" + server.url("/slow") + "\"]}");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the request is in flight",
                () -> server.seen.stream().anyMatch(s -> s.uri().startsWith("/slow")));
        ctx.cancellation.cancel();
        var result = pending.get(5, TimeUnit.SECONDS); // well inside the 30 s timeout: the cancel ended it
        assertEquals("{\"error\": \"Interrupted\", \"success\": false}", okText(result));
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

    @Test
    void alreadyCancelledCallsReturnInterrupted() throws Exception {
        ctx.cancellation.cancel();
        assertEquals(PrettyJson.INTERRUPTED, okText(call(local, ctx, "{\"urls\": [\"" + server.url("/plain") + "\"]}")));
    }
}
