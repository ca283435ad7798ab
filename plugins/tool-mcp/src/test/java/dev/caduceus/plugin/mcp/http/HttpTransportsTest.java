package dev.caduceus.plugin.mcp.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.platform.testkit.Eventually;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTTP transports against real MCP servers on loopback (the SDK's own servlet server transports
 * on Jetty, and servlets that misbehave), driven by the SDK's {@link McpSyncClient}.
 */
class HttpTransportsTest {
    private static final String KEY = "secret-key-123";
    private static final String TOKEN = "tok-abcdef123456";
    private static final Map<String, String> HEADERS = new LinkedHashMap<>();
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static OutboundClient outbound;

    static {
        HEADERS.put("X-Api-Key", KEY);
        HEADERS.put("Authorization", "Bearer " + TOKEN);
    }

    @BeforeAll
    static void start() {
        outbound = new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    @AfterAll
    static void stop() {
        outbound.close();
    }

    private static McpClientTransport open(URI url) {
        return HttpTransports.open(outbound, url, HEADERS, Duration.ofSeconds(5), TestMcpServer.JSON);
    }

    private static McpSyncClient client(McpClientTransport transport, Duration timeout,
                                        Consumer<List<McpSchema.Tool>> toolsChanged) {
        return McpClient.sync(transport).requestTimeout(timeout).initializationTimeout(timeout)
                .jsonSchemaValidator(TestMcpServer.NO_VALIDATION).toolsChangeConsumer(toolsChanged).build();
    }

    private static McpSyncClient client(McpClientTransport transport) {
        return client(transport, WAIT, tools -> { });
    }

    private static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().getFirst()).text();
    }

    private static String chain(Throwable e) {
        var all = new StringBuilder();
        for (var c = e; c != null; c = c.getCause()) all.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" | ");
        return all.toString();
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (var c = e; c != null; c = c.getCause()) if (type.isInstance(c)) return type.cast(c);
        return null;
    }

    @Test
    void streamableHttpInitializesListsCallsAndDeletesTheSessionOnClose() throws Exception {
        try (var server = TestMcpServer.streamable()) {
            var transport = open(server.url());
            var client = client(transport);
            assertEquals("http", HttpTransports.kind(transport));
            var init = client.initialize();
            assertEquals("test-streamable", init.serverInfo().name());
            assertEquals(List.of("echo"), client.listTools().tools().stream().map(McpSchema.Tool::name).toList());
            assertEquals("echo: hi", text(client.callTool(new CallToolRequest("echo", Map.of("text", "hi")))));
            assertEquals("http", HttpTransports.kind(transport));

            var posts = server.seen("POST");
            assertTrue(posts.size() >= 4, "initialize, initialized, tools/list, tools/call: " + posts);
            var first = posts.getFirst();
            assertNull(first.header("Mcp-Session-Id"), "initialize opens a session, so carries none");
            assertNull(first.header("MCP-Protocol-Version"), "no version is negotiated before initialize");
            assertTrue(first.header("Accept").contains("application/json") && first.header("Accept").contains("text/event-stream"));
            assertTrue(first.header("Content-Type").startsWith("application/json"));
            var session = posts.get(1).header("Mcp-Session-Id");
            assertNotNull(session, "the session from the initialize answer goes on every later request");
            for (var later : posts.subList(1, posts.size())) {
                assertEquals(session, later.header("Mcp-Session-Id"));
                assertEquals(init.protocolVersion(), later.header("MCP-Protocol-Version"));
            }

            client.closeGracefully();
            var deletes = server.seen("DELETE");
            assertEquals(1, deletes.size(), "close DELETEs the session: " + server.seen());
            assertEquals(session, deletes.getFirst().header("Mcp-Session-Id"));
            for (var request : server.seen()) {
                assertEquals(KEY, request.header("X-Api-Key"), "configured headers on " + request.method());
                assertEquals("Bearer " + TOKEN, request.header("Authorization"));
            }
        }
    }

    @Test
    void listChangedArrivesOverTheServerStream() throws Exception {
        try (var server = TestMcpServer.streamable()) {
            var changed = new CountDownLatch(1);
            var lists = new CopyOnWriteArrayList<List<String>>();
            var client = client(open(server.url()), WAIT, tools -> {
                var names = tools.stream().map(McpSchema.Tool::name).toList();
                lists.add(names);
                if (names.contains("second")) changed.countDown();
            });
            client.initialize();
            server.mcp().addTool(TestMcpServer.tool("second"));
            // The server drops a notification sent before the GET stream is registered: repeat until one lands.
            Eventually.await(WAIT, "tools/list_changed delivered on the GET stream", () -> {
                server.mcp().notifyToolsListChanged();
                return changed.await(200, TimeUnit.MILLISECONDS);
            });
            var gets = server.seen("GET");
            assertFalse(gets.isEmpty());
            assertTrue(gets.getFirst().header("Accept").contains("text/event-stream"));
            assertNotNull(gets.getFirst().header("Mcp-Session-Id"));
            assertEquals(KEY, gets.getFirst().header("X-Api-Key"));
            assertTrue(lists.stream().anyMatch(l -> l.containsAll(List.of("echo", "second"))), lists.toString());
            client.closeGracefully();
        }
    }

    @Test
    void aServerThatSpeaksOnlyHttpSseIsReachedThroughTheFallback() throws Exception {
        try (var server = TestMcpServer.legacySse()) {
            var transport = open(server.url());
            var client = client(transport);
            assertEquals("test-sse", client.initialize().serverInfo().name());
            assertEquals("sse", HttpTransports.kind(transport));
            assertEquals(List.of("echo"), client.listTools().tools().stream().map(McpSchema.Tool::name).toList());
            assertEquals("echo: old", text(client.callTool(new CallToolRequest("echo", Map.of("text", "old")))));
            client.closeGracefully();

            var seen = server.seen();
            assertEquals("POST", seen.getFirst().method(), "streamable HTTP is tried first");
            assertEquals("/sse", seen.getFirst().path());
            assertEquals("GET", seen.get(1).method());
            assertEquals("/sse", seen.get(1).path());
            var messages = seen.stream().filter(s -> s.path().equals("/mcp/message")).toList();
            assertTrue(messages.size() >= 4, seen.toString());
            for (var request : seen) assertEquals(KEY, request.header("X-Api-Key"), "configured headers on " + request);
        }
    }

    @Test
    void anUnauthorizedAnswerIsAClearErrorWithoutTheSecrets() throws Exception {
        var servlet = new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setStatus(401);
                resp.setContentType("application/json");
                resp.getWriter().write("{\"error\":\"key " + KEY + " and token " + TOKEN + " are not valid\"}");
            }
        };
        try (var server = TestMcpServer.of(servlet)) {
            var client = client(open(server.url()));
            var e = assertThrows(RuntimeException.class, client::initialize);
            var http = cause(e, McpHttpException.class);
            assertNotNull(http, chain(e));
            assertEquals(401, http.status());
            assertTrue(http.getMessage().contains("HTTP 401"), http.getMessage());
            assertTrue(http.getMessage().contains("are not valid"), http.getMessage());
            assertFalse(chain(e).contains(KEY) || chain(e).contains(TOKEN), chain(e));
            assertTrue(http.getMessage().contains("[redacted]"), http.getMessage());
            client.closeGracefully();
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOut() throws Exception {
        var held = new CopyOnWriteArrayList<AsyncContext>();
        var servlet = new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest req, HttpServletResponse resp) {
                var async = req.startAsync();
                async.setTimeout(0);
                held.add(async); // never answered
            }
        };
        try (var server = TestMcpServer.of(servlet)) {
            var client = client(open(server.url()), Duration.ofSeconds(1), tools -> { });
            var e = assertThrows(RuntimeException.class, client::initialize);
            assertNotNull(cause(e, TimeoutException.class), chain(e));
            assertEquals(1, held.size());
            assertEquals(1, active(server.url()), "the POST still waits on its connection: " + outbound.poolStats());
            client.closeGracefully(); // cancels the POST still waiting
            Eventually.await(WAIT, "no connection left active to " + server.url(), () -> active(server.url()) == 0);
        }
    }

    /** Connections busy with an exchange to {@code url}'s origin. */
    private static int active(URI url) {
        var origin = url.getScheme() + "://" + url.getHost() + ":" + url.getPort();
        return outbound.poolStats().stream().filter(s -> s.destination().contains(origin.substring(origin.indexOf("//"))))
                .mapToInt(OutboundClient.PoolStats::active).sum();
    }

    @Test
    void anAnswerStreamThatEndsWithoutTheResponseIsAnErrorAtOnce() throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var servlet = new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                var message = mapper.readTree(req.getInputStream());
                if (!message.has("id")) {
                    resp.setStatus(202);
                    return;
                }
                if (message.get("method").asText().equals("initialize")) {
                    var result = mapper.createObjectNode().put("protocolVersion", "2025-06-18");
                    result.putObject("capabilities").putObject("tools");
                    result.putObject("serverInfo").put("name", "half").put("version", "1");
                    var answer = mapper.createObjectNode().put("jsonrpc", "2.0").set("id", message.get("id"));
                    ((com.fasterxml.jackson.databind.node.ObjectNode) answer).set("result", result);
                    resp.setContentType("application/json");
                    resp.setHeader("Mcp-Session-Id", "s-1");
                    resp.getWriter().write(mapper.writeValueAsString(answer));
                    return;
                }
                resp.setContentType("text/event-stream"); // then ends without the answer
                resp.getWriter().write(": working\n\n");
            }
        };
        try (var server = TestMcpServer.of(servlet)) { // GET: 405, no server stream
            var client = client(open(server.url()), Duration.ofSeconds(60), tools -> { });
            client.initialize();
            var e = assertThrows(RuntimeException.class, client::listTools);
            assertTrue(chain(e).contains("ended its event stream before answering"), chain(e));
            assertEquals("2025-06-18", server.seen("POST").getLast().header("MCP-Protocol-Version"));
            client.closeGracefully();
            var deletes = server.seen("DELETE");
            assertEquals("s-1", deletes.getFirst().header("Mcp-Session-Id"));
        }
    }

    @Test
    void anExpiredSessionIsReportedAndTheClientInitializesAgain() throws Exception {
        try (var server = TestMcpServer.streamable()) {
            var client = client(open(server.url()));
            client.initialize();
            var session = server.seen("POST").get(1).header("Mcp-Session-Id");
            // The server forgets the session (as after a restart).
            try (var gone = outbound.send(OutboundHttp.Request.of("DELETE", server.url()).withHeader("Mcp-Session-Id", session))) {
                assertEquals(200, gone.status());
            }
            var tools = Eventually.await(WAIT, "tools/list on a new session", () -> {
                try {
                    return client.listTools().tools();
                } catch (RuntimeException e) {
                    return null;
                }
            }, v -> v != null);
            assertEquals("echo", tools.getFirst().name());
            var initializes = server.seen("POST").stream().filter(p -> p.header("Mcp-Session-Id") == null).count();
            assertTrue(initializes >= 2, "a second initialize, without the old session: " + server.seen());
            var last = server.seen("POST").getLast().header("Mcp-Session-Id");
            assertNotNull(last);
            assertNotEquals(session, last);
            client.closeGracefully();
        }
    }

    @Test
    void aCancelledNotificationEndsThePostWaitingForThatRequest() throws Exception {
        var started = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var block = SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name("block").inputSchema(Map.of("type", "object")).build())
                .callHandler((exchange, call) -> {
                    started.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return McpSchema.CallToolResult.builder().addTextContent("late").build();
                }).build();
        try (var server = TestMcpServer.streamable(block)) {
            var transport = open(server.url());
            var inbound = new LinkedBlockingQueue<McpSchema.JSONRPCMessage>();
            transport.connect(m -> m.doOnNext(inbound::add)).block();
            var init = new McpSchema.InitializeRequest("2025-06-18", McpSchema.ClientCapabilities.builder().build(),
                    new McpSchema.Implementation("test", "1"));
            transport.sendMessage(new McpSchema.JSONRPCRequest("initialize", "i-1", init)).block(WAIT);
            var answer = (McpSchema.JSONRPCResponse) inbound.poll(10, TimeUnit.SECONDS);
            assertNotNull(answer);
            assertEquals("i-1", answer.id());
            transport.sendMessage(new McpSchema.JSONRPCNotification("notifications/initialized")).block(WAIT);

            var failed = new CompletableFuture<Throwable>();
            transport.sendMessage(new McpSchema.JSONRPCRequest("tools/call", "c-1", Map.of("name", "block",
                    "arguments", Map.of()))).subscribe(ok -> { }, failed::complete, () -> failed.complete(null));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            transport.sendMessage(new McpSchema.JSONRPCNotification("notifications/cancelled",
                    Map.of("requestId", "c-1", "reason", "the run was stopped"))).block(WAIT);
            var why = failed.get(10, TimeUnit.SECONDS);
            assertNotNull(why, "the POST of c-1 never got its answer's headers, so its Mono fails");
            assertTrue(chain(why).contains("cancel"), chain(why));
            release.countDown();
            assertTrue(inbound.stream().noneMatch(m -> m instanceof McpSchema.JSONRPCResponse r && "c-1".equals(r.id())),
                    "no answer is made up for a request the client cancelled: " + inbound);
            transport.closeGracefully().block(WAIT);
        }
    }

    @Test
    void anEndpointOnAnotherOriginIsRefused() throws Exception {
        var servlet = new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setContentType("text/event-stream");
                resp.getWriter().write("event: endpoint\ndata: http://attacker.invalid:9/steal\n\n");
                resp.getWriter().flush();
            }
        };
        try (var server = TestMcpServer.of(servlet)) { // POST is not allowed: HttpServlet answers 405
            var transport = open(server.url());
            var client = client(transport);
            var e = assertThrows(RuntimeException.class, client::initialize);
            assertTrue(chain(e).contains("another origin"), chain(e));
            assertEquals("sse", HttpTransports.kind(transport));
            assertTrue(server.seen().stream().noneMatch(s -> s.path().contains("steal")));
            client.closeGracefully();
        }
    }
}
