package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;

/**
 * An MCP server written with the SDK, run by the tests as a stdio child process
 * ({@code java -cp <test class path> dev.caduceus.plugin.mcp.FaultServer [--silent]}), with a tool per
 * fault. It writes what it observed into {@code $FAULT_DIR}: {@code slow-started} when the slow tool
 * begins, {@code cancelled} with every {@code notifications/cancelled} it receives, {@code crashed} once
 * the crash tool has killed a first process. With {@code --silent} it reads its input and never answers
 * (not even {@code initialize}).
 */
public final class FaultServer {
    private static final JsonSchemaValidator NO_VALIDATION = (schema, content) ->
            JsonSchemaValidator.ValidationResponse.asValid(null);

    public static void main(String[] args) throws Exception {
        var dir = Path.of(System.getenv().getOrDefault("FAULT_DIR", System.getProperty("java.io.tmpdir")));
        System.err.println("fault server starting");
        if (args.length > 0 && args[0].equals("--silent")) {
            System.in.transferTo(OutputStreamNull.INSTANCE);
            return;
        }
        var json = new JacksonMcpJsonMapper(new ObjectMapper());
        var in = new Watching(System.in, dir);
        var transport = new StdioServerTransportProvider(json, in, System.out);
        var server = new AtomicReference<McpSyncServer>();
        var built = McpServer.sync(transport)
                .serverInfo("faults", "1")
                .jsonMapper(json)
                .jsonSchemaValidator(NO_VALIDATION)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true)
                        .resources(false, false).build())
                .resources(new McpServerFeatures.SyncResourceSpecification(
                        McpSchema.Resource.builder("fault://readme", "readme").mimeType("text/plain").build(),
                        (exchange, request) -> new McpSchema.ReadResourceResult(List.of(
                                new McpSchema.TextResourceContents("fault://readme", "text/plain", "read me, model")))))
                .tools(
                        tool("echo", objectSchema("text"), (ex, req) -> text("echo: " + req.arguments().get("text"))),
                        tool("fail", objectSchema(), (ex, req) -> McpSchema.CallToolResult.builder()
                                .addTextContent("it broke on purpose").isError(true).build()),
                        tool("huge", objectSchema(), (ex, req) -> text("x".repeat(300_000))),
                        tool("picture", objectSchema(), (ex, req) -> McpSchema.CallToolResult.builder()
                                .addTextContent("a picture:")
                                .addContent(new McpSchema.ImageContent(null, "A".repeat(16_800), "image/png"))
                                .build()),
                        tool("env", objectSchema(), (ex, req) -> text(new TreeMap<>(System.getenv()).toString())),
                        tool("crash", objectSchema(), (ex, req) -> crashOnce(dir)),
                        tool("hang", objectSchema(), (ex, req) -> sleep(Long.MAX_VALUE)),
                        tool("slow", objectSchema(), (ex, req) -> {
                            append(dir.resolve("slow-started"), "started\n");
                            return sleep(Long.MAX_VALUE);
                        }),
                        tool("bad_schema", Map.of("type", "string"), (ex, req) -> text("schema was bad")),
                        tool("add_tool", objectSchema(), (ex, req) -> {
                            server.get().addTool(tool("late", objectSchema(), (e2, r2) -> text("late tool answered")));
                            server.get().notifyToolsListChanged();
                            return text("added");
                        }))
                .build();
        server.set(built);
        Thread.currentThread().join();
    }

    private static McpSchema.CallToolResult crashOnce(Path dir) {
        var marker = dir.resolve("crashed");
        if (Files.exists(marker)) return text("survived the crash");
        append(marker, "crashed\n");
        Runtime.getRuntime().halt(3);
        return text("unreachable");
    }

    private static McpSchema.CallToolResult sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return text("woke up");
    }

    private static McpServerFeatures.SyncToolSpecification tool(String name, Map<String, Object> schema,
            BiFunction<io.modelcontextprotocol.server.McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(name, schema).description("fault tool " + name).build())
                .callHandler(handler).build();
    }

    private static Map<String, Object> objectSchema(String... properties) {
        var props = new TreeMap<String, Object>();
        for (var p : properties) props.put(p, Map.of("type", "string"));
        return Map.of("type", "object", "properties", props);
    }

    private static McpSchema.CallToolResult text(String text) {
        return McpSchema.CallToolResult.builder().addTextContent(text).build();
    }

    static void append(Path file, String line) {
        try {
            Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The server's input, with every notifications/cancelled line recorded in {@code cancelled}. */
    private static final class Watching extends FilterInputStream {
        private final Path dir;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        Watching(InputStream in, Path dir) {
            super(in);
            this.dir = dir;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) seen(new byte[] {(byte) b}, 0, 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) seen(buffer, offset, n);
            return n;
        }

        private synchronized void seen(byte[] buffer, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                if (buffer[i] == '\n') {
                    var text = line.toString(StandardCharsets.UTF_8);
                    if (text.contains("notifications/cancelled")) append(dir.resolve("cancelled"), text + "\n");
                    line.reset();
                } else {
                    line.write(buffer[i]);
                }
            }
        }
    }

    /** Discards what it is given. */
    private static final class OutputStreamNull extends java.io.OutputStream {
        static final OutputStreamNull INSTANCE = new OutputStreamNull();

        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] b, int off, int len) {}
    }
}
