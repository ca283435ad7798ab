package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.errorMessage;
import static dev.caduceus.plugin.web.WebTestSupport.host;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static dev.caduceus.plugin.web.WebTestSupport.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebExtractToolTest {
    /** Private addresses allowed, so it can reach the fixture server; shared by the class (it keeps no state). */
    private static TestHost local;
    /** The default settings; shared too. */
    private static TestHost strict;
    private final List<TestHost> hosts = new ArrayList<>();
    private final TestCancellation cancellation = new TestCancellation();
    private FixtureServer server;

    @BeforeAll
    static void boot() {
        local = host(Map.of("web.allow_private_addresses", "true", "web.blocked_hosts", "localhost",
                "web.extract.max_chars", "2000", "web.extract.max_bytes", "10000"));
        strict = host(Map.of());
    }

    @AfterAll
    static void shutDown() {
        WebTestSupport.closeAll(new ArrayList<>(List.of(local, strict)));
    }

    @BeforeEach
    void start() throws Exception {
        server = new FixtureServer();
    }

    @AfterEach
    void stop() {
        WebTestSupport.closeAll(hosts);
        server.close();
    }

    /** A host with these {@code tools.*} settings (and environment {@code NAME, value, …}), closed after the test. */
    private TestHost start(Map<String, String> toolsConfig, String... env) {
        var host = host(toolsConfig, env);
        hosts.add(host);
        return host;
    }

    private JsonNode extract(TestHost host, String... urls) throws Exception {
        var args = WebTestSupport.JSON.createObjectNode();
        var array = args.putArray("urls");
        for (var url : urls) array.add(url);
        return okJson(call(host, "web_extract", args.toString()));
    }

    @Test
    void specIsHermesCompatible() {
        var spec = tool(local, "web_extract").spec();
        assertEquals("web_extract", spec.name());
        assertEquals("web", spec.toolset());
        assertEquals("🌐", spec.emoji());
        assertTrue(spec.parallelSafe());
        assertEquals("{\"type\":\"object\",\"required\":[\"urls\"],\"properties\":{\"urls\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\"},\"maxItems\":5}}}", spec.parameters().toString());
        assertTrue(tool(local, "web_extract").available());
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
        var text = okText(call(local, "web_extract", "{\"urls\": [\"" + server.url("/plain") + "\"]}"));
        assertEquals("{\n  \"results\": [\n    {\n      \"url\": \"" + server.url("/plain") + "\",\n      \"title\": \"\",\n"
                + "      \"content\": \"just text\\n  kept   as is\",\n      \"error\": null\n    }\n  ]\n}", text);
    }

    @Test
    void aSingleStringIsWrappedAndOnlyFiveUrlsAreTaken() throws Exception {
        var one = okJson(call(local, "web_extract", "{\"urls\": \"" + server.url("/plain") + "\"}"));
        assertEquals(1, one.path("results").size());
        var url = server.url("/plain");
        assertEquals(5, extract(local, url, url, url, url, url, url, url).path("results").size());
    }

    @Test
    void longTextKeepsHeadAndTailAndSavesTheWhole() throws Exception {
        var content = extract(local, server.url("/long")).path("results").get(0).path("content").asText();
        var saved = TextWindow.savedFile(java.net.URI.create(server.url("/long")), local.workspace());
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
        var saved = Files.readString(TextWindow.savedFile(java.net.URI.create(server.url("/huge")), local.workspace()));
        assertTrue(saved.length() <= 10_000 && saved.length() > 9_000, "kept " + saved.length());
    }

    @Test
    void slowPageTimesOut() throws Exception {
        var quick = start(Map.of("web.allow_private_addresses", "true",
                "web.extract.timeout_seconds", "1"));
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
        // a blocked name is never looked up: if it were, the system's resolver would answer "Cannot resolve"
        var corp = start(Map.of("web.allow_private_addresses", "true", "web.blocked_hosts", "*.corp.example, localhost"));
        var results = extract(corp, "http://wiki.corp.example/", "http://LOCALHOST.:" + server.port() + "/plain")
                .path("results");
        assertEquals("Blocked: host wiki.corp.example is blocked by configuration", results.get(0).path("error").asText());
        assertEquals("Blocked: host localhost is blocked by configuration", results.get(1).path("error").asText());
        assertTrue(server.seen.isEmpty());
    }

    @Test
    void anUnresolvableHostIsNamed() throws Exception {
        // the system's resolver: .invalid never resolves (RFC 6761)
        var error = extract(strict, "http://nowhere.invalid/page").path("results").get(0).path("error").asText();
        assertEquals("Cannot resolve the host of http://nowhere.invalid/page", error);
    }



    /**
     * A redirect chain from a public page to a private address, under the strict policy: the public
     * hops come through a forward proxy (the fixture server plays it, the only way a public page can be
     * served on loopback), and the hop to the private address is refused by the client before it is
     * sent, so neither the proxy nor anything else sees it.
     */
    @Test
    void aRedirectChainToAPrivateAddressIsRefusedAtTheHop() throws Exception {
        // only the proxy is looked up: www.public.test would not resolve, and the hops would say so
        var proxied = start(Map.of(), "HTTP_PROXY", "http://127.0.0.1:" + server.port());
        var results = extract(proxied, "http://www.public.test/chain", "http://www.public.test/chain-to-mapped")
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
        // (a number, or numbers, where the schema says a list of strings are coerced by the host: a URL "5")
        assertFalse(extract(local, "5").path("results").get(0).path("error").isNull());
        assertFalse(okJson(call(local, "web_extract", "{\"urls\": 5}")).path("results").get(0).path("error").isNull());
        for (var args : new String[] {"{}", "{\"urls\": {\"a\": 5}}", "{\"urls\": [{}, []]}", "{\"urls\": []}", "{\"urls\": null}"}) {
            var error = errorMessage(call(local, "web_extract", args));
            assertTrue(error.startsWith("Error extracting content: "), args + " -> " + error);
        }
        var bad = extract(local, "not a url at all");
        assertFalse(bad.path("results").get(0).path("error").isNull());
    }

    @Test
    void cancellationAbortsInFlightRequests() throws Exception {
        var patient = start(Map.of("web.allow_private_addresses", "true",
                "web.extract.timeout_seconds", "30"));
        var pending = CompletableFuture.supplyAsync(() -> {
            try {
                return call(patient, "web_extract", "{\"urls\": [\"" + server.url("/slow") + "\"]}", cancellation);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the request is in flight",
                () -> server.seen.stream().anyMatch(s -> s.uri().startsWith("/slow")));
        cancellation.cancel();
        var result = pending.get(5, TimeUnit.SECONDS); // well inside the 30 s timeout: the cancel ended it
        assertEquals("{\"error\": \"Interrupted\", \"success\": false}", okText(result));
    }


    @Test
    void alreadyCancelledCallsReturnInterrupted() throws Exception {
        cancellation.cancel();
        assertEquals(PrettyJson.INTERRUPTED, okText(call(local, "web_extract", "{\"urls\": [\"" + server.url("/plain") + "\"]}",
                cancellation)));
    }
}
