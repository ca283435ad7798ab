package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static dev.caduceus.plugin.web.WebTestSupport.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebSearchToolTest {
    @TempDir Path workspace;
    private final WebPlugin plugin = new WebPlugin();
    private FixtureServer server;
    private TestToolContext ctx;
    private OutboundClient client;

    @BeforeEach
    void start() throws Exception {
        client = new OutboundClient(ProxyRules.direct(), "caduceus-test");
        server = new FixtureServer();
        ctx = new TestToolContext(workspace);
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void unavailableWithoutABackendAndSaysWhatToSet() {
        var search = tool(plugin, "web_search", Map.of(), client);
        assertFalse(search.available());
        var reason = search.unavailableReason();
        assertTrue(reason.contains("tools.web.search.searxng.url") && reason.contains("SEARXNG_URL")
                && reason.contains("tools.web.search.tavily.api_key") && reason.contains("TAVILY_API_KEY"), reason);
        var tavilyWithoutKey = tool(plugin, "web_search", Map.of("web.search.backend", "tavily"), client);
        assertFalse(tavilyWithoutKey.available());
        assertTrue(tavilyWithoutKey.unavailableReason().contains("TAVILY_API_KEY"));
        var unknown = tool(plugin, "web_search", Map.of("web.search.backend", "bing"), client);
        assertTrue(unknown.unavailableReason().contains("'bing'"));
    }

    @Test
    void specIsHermesCompatible() {
        var spec = tool(plugin, "web_search", Map.of(), client).spec();
        assertEquals("{\"type\":\"object\",\"required\":[\"query\"],\"properties\":{\"query\":{\"type\":\"string\","
                + "\"description\":\"search query\"}}}", spec.parameters().toString());
        assertEquals("web", spec.toolset());
        assertEquals("🔍", spec.emoji());
        assertTrue(spec.parallelSafe());
    }

    @Test
    void searxngBackendSendsQueryAndKeyAndMapsResults() throws Exception {
        var search = tool(plugin, "web_search", Map.of("web.search.searxng.url", server.url("/searxng/"),
                "web.search.searxng.api_key", "sx-secret-key", "web.search.max_results", "2",
                "web.search.tavily.api_key", "unused-because-searxng-wins"), client);
        assertTrue(search.available());
        assertNull(search.unavailableReason());
        var text = okText(call(search, ctx, "{\"query\": \"caduceus agent & more\"}"));
        assertEquals("""
                {
                  "success": true,
                  "data": {
                    "web": [
                      {
                        "title": "Ünïcode title",
                        "url": "https://a.example/1",
                        "description": "first hit",
                        "position": 1
                      },
                      {
                        "title": "Second",
                        "url": "https://b.example/2",
                        "description": "second hit",
                        "position": 2
                      }
                    ]
                  }
                }""", text);
        var seen = server.seen.getFirst();
        assertEquals("GET", seen.method());
        assertEquals("/searxng/search?q=caduceus+agent+%26+more&format=json", seen.uri());
        assertEquals("Bearer sx-secret-key", seen.authorization());
    }

    @Test
    void tavilyBackendPostsKeyQueryAndMaxResults() throws Exception {
        var search = tool(plugin, "web_search", Map.of("web.search.tavily.url", server.url("/tavily"),
                "web.search.tavily.api_key", "tvly-test-key"), client);
        var result = okJson(call(search, ctx, "{\"query\": \"hello\"}"));
        assertTrue(result.path("success").asBoolean());
        var hit = result.path("data").path("web").get(0);
        assertEquals("T1", hit.path("title").asText());
        assertEquals("https://t.example/1", hit.path("url").asText());
        assertEquals("tavily hit", hit.path("description").asText());
        assertEquals(1, hit.path("position").asInt());
        var seen = server.seen.getFirst();
        assertEquals("POST", seen.method());
        assertEquals("/tavily/search", seen.uri());
        assertEquals("Bearer tvly-test-key", seen.authorization());
        var body = WebTestSupport.JSON.readTree(seen.body());
        assertEquals("tvly-test-key", body.path("api_key").asText());
        assertEquals("hello", body.path("query").asText());
        assertEquals(5, body.path("max_results").asInt());
    }

    @Test
    void backendErrorsNameTheStatus() throws Exception {
        var search = tool(plugin, "web_search", Map.of("web.search.searxng.url", server.url("/broken")), client);
        var error = assertInstanceOf(ToolResult.Error.class, call(search, ctx, "{\"query\": \"x\"}"));
        assertEquals("Error searching web: SearXNG returned HTTP 503: upstream down", error.message());
        var unreachable = tool(plugin, "web_search", Map.of("web.search.searxng.url", "http://127.0.0.1:1"), client);
        var down = assertInstanceOf(ToolResult.Error.class, call(unreachable, ctx, "{\"query\": \"x\"}"));
        assertTrue(down.message().startsWith("Error searching web: "), down.message());
    }

    @Test
    void wrongArgumentsAreErrorsNotExceptions() throws Exception {
        var search = tool(plugin, "web_search", Map.of("web.search.searxng.url", server.url("/searxng")), client);
        for (var args : new String[] {"{}", "{\"query\": 5}", "{\"query\": [\"a\"]}", "{\"query\": \"  \"}",
                "{\"query\": null}"}) {
            var error = assertInstanceOf(ToolResult.Error.class, call(search, ctx, args), args);
            assertTrue(error.message().startsWith("Error searching web: "), error.message());
        }
        assertTrue(server.seen.isEmpty());
    }

    @Test
    void cancellationAbortsTheBackendCall() throws Exception {
        var search = tool(plugin, "web_search", Map.of("web.search.searxng.url", server.url("/slowsearch")), client);
        var pending = CompletableFuture.supplyAsync(() -> {
            try {
                return call(search, ctx, "{\"query\": \"slow\"}");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the request is in flight",
                () -> server.seen.stream().anyMatch(s -> s.uri().startsWith("/slowsearch")));
        ctx.cancellation.cancel(); // the backend never answers: only the cancel ends the call
        assertEquals("{\"error\": \"Interrupted\", \"success\": false}", okText(pending.get(5, TimeUnit.SECONDS)));
    }
}
