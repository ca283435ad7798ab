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
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.testkit.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebExtractToolTest {
    @TempDir Path workspace;
    private final WebPlugin plugin = new WebPlugin();
    private FixtureServer server;
    private TestToolContext ctx;
    private Tool local; // private addresses allowed, so it can reach the fixture server

    @BeforeEach
    void start() throws Exception {
        server = new FixtureServer();
        ctx = new TestToolContext(workspace);
        local = tool(plugin, "web_extract", Map.of("web.allow_private_addresses", "true",
                "web.blocked_hosts", "localhost", "web.extract.max_chars", "2000", "web.extract.max_bytes", "10000",
                "web.extract.timeout_seconds", "1"));
    }

    @AfterEach
    void stop() {
        plugin.stop();
        server.close();
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
        var result = extract(local, server.url("/slow")); // the page never finishes: only the timeout ends the call
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
        assertEquals("Too many redirects (more than 5)", results.get(2).path("error").asText());
        assertTrue(results.get(3).path("error").isNull());
    }

    @Test
    void redirectsAreFollowedAndEveryHopIsChecked() throws Exception {
        var results = extract(local, server.url("/hop"), server.url("/to-metadata"), server.url("/to-localhost"))
                .path("results");
        assertEquals("The Article", results.get(0).path("title").asText());
        assertEquals(AddressGuard.BLOCKED, results.get(1).path("error").asText());
        assertEquals("Blocked: host localhost is in tools.web.blocked_hosts", results.get(2).path("error").asText());
        assertEquals(1, server.seen.stream().filter(s -> s.uri().equals("/article")).count(), "only /hop reached /article");
    }

    @Test
    void defaultSettingsRefuseLoopbackPrivateMetadataAndOtherSchemes() throws Exception {
        var strict = tool(plugin, "web_extract", Map.of());
        var results = extract(strict, server.url("/article"), "http://10.0.0.1/", "http://169.254.169.254/latest/",
                "http://[::1]:" + server.port() + "/article", "file:///etc/passwd").path("results");
        for (int i = 0; i < 4; i++) assertEquals(AddressGuard.BLOCKED, results.get(i).path("error").asText());
        assertEquals("Unsupported URL scheme: file", results.get(4).path("error").asText());
        var ftp = extract(strict, "ftp://example.com/x");
        assertEquals("Unsupported URL scheme: ftp", ftp.path("results").get(0).path("error").asText());
        assertTrue(server.seen.isEmpty(), "nothing may reach the server: " + server.seen);
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
                "web.extract.timeout_seconds", "30"));
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
    void alreadyCancelledCallsReturnInterrupted() throws Exception {
        ctx.cancellation.cancel();
        assertEquals(PrettyJson.INTERRUPTED, okText(call(local, ctx, "{\"urls\": [\"" + server.url("/plain") + "\"]}")));
    }
}
