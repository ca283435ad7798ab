package dev.caduceus.plugin.mcp.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletSseServerTransportProvider;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real MCP server on loopback for the transports' tests: the SDK's servlet transports (streamable
 * HTTP, or the older HTTP+SSE) on an embedded Jetty, or any servlet standing in for a misbehaving
 * server; every request it receives is recorded (method, path, headers). Close it after use.
 */
final class TestMcpServer implements AutoCloseable {
    static final McpJsonMapper JSON = new JacksonMcpJsonMapper(new ObjectMapper());
    /** No output-schema checks: the SDK's default validator is not on this plugin's class path. */
    static final JsonSchemaValidator NO_VALIDATION = (schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null);

    /** One request as the server saw it; header names lower case. */
    record Seen(String method, String path, Map<String, String> headers) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Server jetty;
    private final McpSyncServer mcp;
    private final String path;
    private final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();

    private TestMcpServer(HttpServlet servlet, McpSyncServer mcp, String path) throws Exception {
        this.mcp = mcp;
        this.path = path;
        jetty = new Server();
        var connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        var context = new ServletContextHandler();
        var holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/*");
        Filter record = (request, response, chain) -> {
            var http = (HttpServletRequest) request;
            var headers = new TreeMap<String, String>();
            for (var name : Collections.list(http.getHeaderNames()))
                headers.put(name.toLowerCase(Locale.ROOT), http.getHeader(name));
            seen.add(new Seen(http.getMethod(), http.getRequestURI(), headers));
            chain.doFilter(request, response);
        };
        var filter = new FilterHolder(record);
        filter.setAsyncSupported(true);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        jetty.setHandler(context);
        jetty.start();
    }

    /** A server that speaks only HTTP+SSE (2024-11-05): the stream at {@code /sse}, messages to {@code /mcp/message}. */
    static TestMcpServer legacySse() throws Exception {
        var provider = HttpServletSseServerTransportProvider.builder().jsonMapper(JSON).sseEndpoint("/sse")
                .messageEndpoint("/mcp/message").build();
        var mcp = McpServer.sync(provider).serverInfo("test-sse", "1.0").jsonMapper(JSON)
                .jsonSchemaValidator(NO_VALIDATION)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(echo()).build();
        return new TestMcpServer(provider, mcp, "/sse");
    }

    /** A streamable-HTTP server at {@code /mcp} with {@link #echo()} and {@code extra} tools. */
    static TestMcpServer streamable(SyncToolSpecification... extra) throws Exception {
        var provider = HttpServletStreamableServerTransportProvider.builder().jsonMapper(JSON).mcpEndpoint("/mcp").build();
        var all = new java.util.ArrayList<SyncToolSpecification>(List.of(echo()));
        all.addAll(List.of(extra));
        var mcp = McpServer.sync(provider).serverInfo("test-streamable", "1.0").jsonMapper(JSON)
                .jsonSchemaValidator(NO_VALIDATION)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(all).build();
        return new TestMcpServer(provider, mcp, "/mcp");
    }

    /** Any servlet at {@code /mcp}, for a server that misbehaves. */
    static TestMcpServer of(HttpServlet servlet) throws Exception {
        return new TestMcpServer(servlet, null, "/mcp");
    }

    /** {@code echo}: returns {@code "echo: " + text}. */
    static SyncToolSpecification echo() {
        return tool("echo");
    }

    static SyncToolSpecification tool(String name) {
        var schema = Map.<String, Object>of("type", "object", "properties", Map.of("text", Map.of("type", "string")));
        return SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name(name).description("says it back").inputSchema(schema).build())
                .callHandler((exchange, call) -> McpSchema.CallToolResult.builder()
                        .addTextContent(name + ": " + call.arguments().get("text")).build())
                .build();
    }

    URI url() {
        return jetty.getURI().resolve(path);
    }

    McpSyncServer mcp() {
        return mcp;
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    List<Seen> seen(String method) {
        return seen.stream().filter(s -> s.method().equals(method)).toList();
    }

    @Override
    public void close() throws Exception {
        if (mcp != null) mcp.close();
        jetty.stop();
    }
}
