package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.errorMessage;
import static dev.caduceus.plugin.web.WebTestSupport.host;
import static dev.caduceus.plugin.web.WebTestSupport.listing;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static dev.caduceus.plugin.web.WebTestSupport.okText;
import static dev.caduceus.plugin.web.WebTestSupport.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.TestHost;
import java.util.ArrayList;
import java.util.List;
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

    /** A host with these {@code tools.*} settings, closed after the test. */
    private TestHost start(Map<String, String> toolsConfig) {
        var host = host(toolsConfig);
        hosts.add(host);
        return host;
    }

    @Test
    void unavailableWithoutABackendAndSaysWhatToSet() {
        var search = start(Map.of());
        assertFalse(search.tools().stream().anyMatch(t -> t.spec().name().equals("web_search")), "not offered");
        var reason = listing(search, "web_search");
        assertTrue(reason.contains("unavailable: "), reason);
        assertTrue(reason.contains("tools.web.search.searxng.url") && reason.contains("SEARXNG_URL")
                && reason.contains("tools.web.search.tavily.api_key") && reason.contains("TAVILY_API_KEY"), reason);
        var tavilyWithoutKey = start(Map.of("web.search.backend", "tavily"));
        assertTrue(listing(tavilyWithoutKey, "web_search").contains("unavailable: "));
        assertTrue(listing(tavilyWithoutKey, "web_search").contains("TAVILY_API_KEY"));
        // an unknown backend is not a tool that says so: the host refuses to boot, naming it
        var unknown = assertThrows(IllegalStateException.class, () -> start(Map.of("web.search.backend", "bing")));
        assertTrue(unknown.getMessage().contains("\"bing\" is not one of auto, searxng, tavily"), unknown.getMessage());
    }

    @Test
    void specIsHermesCompatible() {
        var spec = tool(start(Map.of("web.search.searxng.url", server.url("/searxng/"))), "web_search").spec();
        assertEquals("{\"type\":\"object\",\"required\":[\"query\"],\"properties\":{\"query\":{\"type\":\"string\","
                + "\"description\":\"search query\"}}}", spec.parameters().toString());
        assertEquals("web", spec.toolset());
        assertEquals("🔍", spec.emoji());
        assertTrue(spec.parallelSafe());
    }

    @Test
    void searxngBackendSendsQueryAndKeyAndMapsResults() throws Exception {
        var search = start(Map.of("web.search.searxng.url", server.url("/searxng/"),
                "web.search.searxng.api_key", "sx-secret-key", "web.search.max_results", "2",
                "web.search.tavily.api_key", "unused-because-searxng-wins"));
        assertTrue(tool(search, "web_search").available(), "offered and available");
        assertFalse(listing(search, "web_search").contains("unavailable"), listing(search, "web_search"));
        var text = okText(call(search, "web_search", "{\"query\": \"caduceus agent & more\"}"));
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
        var search = start(Map.of("web.search.tavily.url", server.url("/tavily"),
                "web.search.tavily.api_key", "tvly-test-key"));
        var result = okJson(call(search, "web_search", "{\"query\": \"hello\"}"));
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
        assertEquals(WebKeys.MAX_RESULTS.defaultValue(), body.path("max_results").asText(), "the default: unset here");
    }

    @Test
    void backendErrorsNameTheStatus() throws Exception {
        var search = start(Map.of("web.search.searxng.url", server.url("/broken")));
        assertEquals("Error searching web: SearXNG returned HTTP 503: upstream down",
                errorMessage(call(search, "web_search", "{\"query\": \"x\"}")));
        var unreachable = start(Map.of("web.search.searxng.url", "http://127.0.0.1:1"));
        var down = errorMessage(call(unreachable, "web_search", "{\"query\": \"x\"}"));
        assertTrue(down.startsWith("Error searching web: "), down);
    }

    @Test
    void wrongArgumentsAreErrorsNotExceptions() throws Exception {
        var search = start(Map.of("web.search.searxng.url", server.url("/searxng")));
        // (a number for the query is coerced to a string by the host before the tool sees it)
        for (var args : new String[] {"{}", "{\"query\": {\"a\": 5}}", "{\"query\": [\"a\"]}", "{\"query\": \"  \"}",
                "{\"query\": null}"}) {
            var error = errorMessage(call(search, "web_search", args));
            assertTrue(error.startsWith("Error searching web: "), args + " -> " + error);
        }
        assertTrue(server.seen.isEmpty());
    }

    @Test
    void cancellationAbortsTheBackendCall() throws Exception {
        var search = start(Map.of("web.search.searxng.url", server.url("/slowsearch")));
        var pending = CompletableFuture.supplyAsync(() -> {
            try {
                return call(search, "web_search", "{\"query\": \"slow\"}", cancellation);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Eventually.await(Duration.ofSeconds(5), "the request is in flight",
                () -> server.seen.stream().anyMatch(s -> s.uri().startsWith("/slowsearch")));
        cancellation.cancel(); // the backend never answers: only the cancel ends the call
        assertEquals("{\"error\": \"Interrupted\", \"success\": false}", okText(pending.get(5, TimeUnit.SECONDS)));
    }
}
