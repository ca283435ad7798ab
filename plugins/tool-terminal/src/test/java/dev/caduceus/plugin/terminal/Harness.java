package dev.caduceus.plugin.terminal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolResult;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A started {@link TerminalPlugin} over a temporary workspace, with helpers to call its tools. It opens
 * (and closes) a database of its own, or runs on one the test gives it (a restart, a second node), which
 * the test closes.
 */
final class Harness implements AutoCloseable {
    final Path workspace;
    final Path home;
    final TerminalPlugin plugin = new TerminalPlugin(Duration.ofMillis(300));
    final ObjectMapper json;
    final Tool terminal;
    final Tool process;

    final TestDatabase database;
    private final boolean ownsDatabase;
    final boolean sandboxed;

    /** @param tools {@code tools.*} settings; {@code terminal.backend} defaults to {@code local} here */
    Harness(Path tmp, String approvalsMode, Map<String, String> tools) throws Exception {
        this(tmp, approvalsMode, tools, List.of());
    }

    /** @param configElsewhere more protected paths, as a configuration file given with {@code --config} */
    Harness(Path tmp, String approvalsMode, Map<String, String> tools, List<Path> configElsewhere) throws Exception {
        this(tmp, approvalsMode, tools, configElsewhere, TestDatabase.open(tmp, "tool-terminal"), true);
    }

    /** On a fresh database of {@code dialect}. */
    Harness(Path tmp, String approvalsMode, Dialect dialect) throws Exception {
        this(tmp, approvalsMode, Map.of(), List.of(), TestDatabase.open(tmp, "tool-terminal", dialect), true);
    }

    Harness(Path tmp, Dialect dialect) throws Exception {
        this(tmp, "manual", dialect);
    }

    /** On {@code database}, which stays open after {@link #close}: a restart, or another node of the same database. */
    Harness(Path tmp, TestDatabase database) throws Exception {
        this(tmp, "manual", Map.of(), List.of(), database, false);
    }

    private Harness(Path tmp, String approvalsMode, Map<String, String> tools, List<Path> configElsewhere,
                    TestDatabase database, boolean ownsDatabase) throws Exception {
        this.database = database;
        this.ownsDatabase = ownsDatabase;
        home = tmp.resolve("home");
        workspace = tmp.resolve("workspace");
        var settings = new java.util.HashMap<>(tools);
        settings.putIfAbsent("terminal.backend", "local");
        sandboxed = settings.get("terminal.backend").equals("sandbox");
        var ctx = FakePlatformContext.builder("tool-terminal")
                .database(database)
                .global(new GlobalConfig("hermes-agent", home, workspace, "1.0.0", 10, 30, List.of("hermes-api-server"),
                        90, false, protectedPaths(home, configElsewhere)))
                .sections(Map.of("approvals.mode", approvalsMode))
                .toolsConfig(settings)
                .build();
        json = ctx.json();
        plugin.start(ctx);
        var all = plugin.tools(ctx);
        terminal = all.stream().filter(t -> t.spec().name().equals("terminal")).findFirst().orElseThrow();
        process = all.stream().filter(t -> t.spec().name().equals("process")).findFirst().orElseThrow();
    }

    Harness(Path tmp) throws Exception {
        this(tmp, "manual", Map.of());
    }

    private static List<Path> protectedPaths(Path home, List<Path> more) {
        var all = new java.util.ArrayList<Path>(List.of(home));
        all.addAll(more);
        return all;
    }

    /** {@code relative} inside the workspace, as commands see it. */
    String view(String relative) throws java.io.IOException {
        var root = sandboxed ? "/workspace" : workspace.toRealPath().toString();
        return relative.isEmpty() ? root : root + "/" + relative;
    }

    FakeToolContext session(String id) {
        return new FakeToolContext(id, workspace, json, false, ApprovalChoice.DENY);
    }

    FakeToolContext session(String id, boolean channel, ApprovalChoice answer) {
        return new FakeToolContext(id, workspace, json, channel, answer);
    }

    /** Calls terminal with the given arguments (a JSON object text) and returns the raw result. */
    ToolResult call(Tool tool, FakeToolContext ctx, String arguments) throws Exception {
        return tool.call(new ToolCall("call_1", tool.spec().name(), (ObjectNode) json.readTree(arguments)), ctx);
    }

    /** Runs a foreground command and parses the Ok result. */
    JsonNode run(FakeToolContext ctx, String command) throws Exception {
        return ok(call(terminal, ctx, json.writeValueAsString(Map.of("command", command))));
    }

    JsonNode ok(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return json.readTree(ok.content());
    }

    static String content(ToolResult result) {
        return switch (result) {
            case ToolResult.Ok ok -> ok.content();
            case ToolResult.Error e -> "{\"error\": \"" + e.message() + "\"}";
        };
    }

    @Override
    public void close() throws Exception {
        plugin.stop();
        if (ownsDatabase) database.close();
    }
}
