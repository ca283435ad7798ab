package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebTestSupport.call;
import static dev.caduceus.plugin.web.WebTestSupport.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.spi.tool.ToolResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code tools.web.*} keys on the real host: what {@code caduceus config-reference} lists for them,
 * and that a host on which none is set behaves as the listed defaults say. That host reaches the pages
 * through a forward proxy ({@code HTTP_PROXY}: the {@link FixtureServer}, which answers proxied
 * requests), so the default egress policy stays on and the pages can still be local; its searches
 * go to a second proxy ({@code HTTPS_PROXY}) that only records where the tunnel was asked to go.
 * {@code tools.web.search.max_results}' default is seen in the Tavily request body by
 * {@code WebSearchToolTest.tavilyBackendPostsKeyQueryAndMaxResults}.
 */
@Timeout(120)
class WebKeysTest {

    @Test
    void theReferenceListsEveryDeclaredKeyUnderToolsWebWithItsDefaultAndTheSecretsWithNone() {
        try (var host = WebTestSupport.host(Map.of())) {
            var rows = host.configReferenceRows("tool-web");
            assertEquals(new TreeSet<>(WebKeys.ALL.stream().map(s -> s.key()).toList()), new TreeSet<>(rows.keySet()),
                    "every key tool-web declares, and only those");
            rows.keySet().forEach(key -> assertTrue(key.startsWith("tools.web."), key));
            for (var setting : WebKeys.ALL) {
                var row = rows.get(setting.key());
                assertEquals(setting.defaultValue() == null ? "" : setting.defaultValue(), row.get(1), setting.key());
                assertEquals(setting.description(), row.get(3), setting.key());
            }
            for (var secret : List.of(WebKeys.SEARXNG_API_KEY, WebKeys.TAVILY_API_KEY)) {
                assertEquals("string (secret)", rows.get(secret.key()).get(0), secret.key());
                assertEquals("", rows.get(secret.key()).get(1), secret.key() + " shows no default");
            }
            assertTrue(rows.get(WebKeys.TAVILY_API_KEY.key()).get(2).startsWith("`TAVILY_API_KEY`, "),
                    "its own variable first: " + rows.get(WebKeys.TAVILY_API_KEY.key()));
        }
    }

    @Test
    void aHostWithNoToolsWebKeySetBehavesAsTheDefaultsSay() throws Exception {
        try (var pages = new FixtureServer(); var tunnels = new ConnectRecorder();
             var host = WebTestSupport.host(Map.of(), "HTTP_PROXY", "http://127.0.0.1:" + pages.port(),
                     "HTTPS_PROXY", "http://127.0.0.1:" + tunnels.port(), "TAVILY_API_KEY", "tvly-default-test")) {
            // extract.timeout_seconds: its default (20 s) is not waited for here; the timeout is WebKeys.DEFAULT_TIMEOUT,
            // the one constant the declared key and WebSettings share, and WebExtractToolTest ends a call that never
            // finishes after a configured 1 s
            // search.backend auto with only a Tavily key: Tavily, at search.tavily.url's default
            assertInstanceOf(ToolResult.Error.class, call(host, "web_search", "{\"query\": \"q\"}"),
                    "the tunnel is refused, so the search fails");
            assertEquals(List.of("CONNECT " + URI.create(WebKeys.DEFAULT_TAVILY_URL).getHost() + ":443 HTTP/1.1"),
                    tunnels.requestLines);

            // extract.max_chars: a page text of that length comes back whole, one more character does not
            int maxChars = Integer.parseInt(WebKeys.MAX_CHARS.defaultValue());
            assertEquals("x".repeat(maxChars), content(host, "http://page.test/text?chars=" + maxChars));
            var cut = content(host, "http://page.test/text?chars=" + (maxChars + 1));
            assertTrue(cut.startsWith("x".repeat(maxChars * 3 / 4) + "\n\n[... 1 chars omitted; full text saved to "),
                    cut.substring(0, Math.min(cut.length(), maxChars * 3 / 4 + 60)));

            // extract.max_bytes: of a longer page, that many bytes are read (all saved, being over max_chars)
            long maxBytes = Long.parseLong(WebKeys.MAX_BYTES.defaultValue());
            var big = "http://page.test/text?chars=" + (maxBytes + 1024 * 1024);
            content(host, big);
            assertEquals(maxBytes, Files.size(TextWindow.savedFile(URI.create(big), host.workspace())));

            // allow_private_addresses false, blocked_hosts empty: a literal private address is refused, page.test is not
            assertEquals("Blocked: 10.0.0.1 is a private or internal network address",
                    extract(host, "http://10.0.0.1/").path("results").get(0).path("error").asText());
            assertTrue(pages.seen.stream().allMatch(s -> s.uri().startsWith("http://page.test/")), pages.seen.toString());

        }
    }

    private static JsonNode extract(TestHost host, String url) throws Exception {
        return okJson(call(host, "web_extract", "{\"urls\": [\"" + url + "\"]}"));
    }

    /** The content of one page, which must have been fetched without error. */
    private static String content(TestHost host, String url) throws Exception {
        var result = extract(host, url).path("results").get(0);
        assertTrue(result.path("error").isNull(), result.toString());
        return result.path("content").asText();
    }

    /**
     * A forward proxy that refuses every tunnel and records the request line of each: where a client
     * sending HTTPS through it wanted to go. Nothing is forwarded. Lifecycle: new, then {@link #close()}.
     */
    static final class ConnectRecorder implements AutoCloseable {
        final List<String> requestLines = new CopyOnWriteArrayList<>();
        private final ServerSocket socket;
        private final Thread acceptor;

        ConnectRecorder() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofVirtual().start(() -> {
                while (!socket.isClosed()) {
                    try (var client = socket.accept()) {
                        client.setSoTimeout((int) Duration.ofSeconds(10).toMillis());
                        var in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.ISO_8859_1));
                        var first = in.readLine();
                        for (var line = first; line != null && !line.isEmpty(); line = in.readLine()) {
                            // the head ends at the empty line
                        }
                        if (first != null) requestLines.add(first);
                        client.getOutputStream().write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.ISO_8859_1));
                    } catch (IOException e) {
                        // closed, or a client that went away
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            acceptor.join(Duration.ofSeconds(5));
        }
    }
}
