package dev.caduceus.plugin.terminal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.platform.testkit.TestDatabase;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.support.services.ToolCalls;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The terminal plugin on the real host ({@link TestHost} with its real jar): {@code $CADUCEUS_HOME} is
 * {@code <tmp>/home}, the workspace {@code <tmp>/workspace}, and the tools are called through the host's
 * dispatcher as direct calls (no approval channel) in a {@link Session} of the admin key. On SQLite (the
 * host's own file) or PostgreSQL; another Harness {@linkplain #Harness(Path, Harness) on the same
 * database} is a restart (after this one closed) or another node (while it runs).
 */
final class Harness implements AutoCloseable {
    final Path workspace;
    final Path home;
    final ObjectMapper json = new ObjectMapper();
    final TestHost host;
    /** The plugin's real instances, as the host runs them. */
    final Tool terminal;
    final Tool process;
    final boolean sandboxed;
    private final TestPostgres.Db postgres; // null on SQLite

    /** @param tools {@code tools.*} settings; {@code terminal.backend} defaults to {@code local} here */
    Harness(Path tmp, String approvalsMode, Map<String, String> tools) throws Exception {
        this(tmp, approvalsMode, tools, List.of());
    }

    /** @param configElsewhere a configuration file given with {@code --config} (at most one) */
    Harness(Path tmp, String approvalsMode, Map<String, String> tools, List<Path> configElsewhere) throws Exception {
        this(tmp, approvalsMode, tools, configElsewhere, null);
    }

    /** On a fresh database of {@code dialect}. */
    Harness(Path tmp, String approvalsMode, Dialect dialect) throws Exception {
        this(tmp, approvalsMode, Map.of(), List.of(), dialect == Dialect.POSTGRESQL ? TestPostgres.shared().newDatabase() : null);
    }

    Harness(Path tmp, Dialect dialect) throws Exception {
        this(tmp, "manual", dialect);
    }

    /**
     * On {@code same}'s database: on SQLite its {@code $CADUCEUS_HOME} (a restart once it closed, a second
     * process while it runs), on PostgreSQL its database (another node). {@code tmp} holds the workspace.
     */
    Harness(Path tmp, Harness same) throws Exception {
        this(tmp, "manual", Map.of(), List.of(), same.postgres, same.postgres == null ? same.home : null);
    }

    Harness(Path tmp) throws Exception {
        this(tmp, "manual", Map.of());
    }

    private Harness(Path tmp, String approvalsMode, Map<String, String> tools, List<Path> configElsewhere,
                    TestPostgres.Db postgres) throws Exception {
        this(tmp, approvalsMode, tools, configElsewhere, postgres, null);
    }

    private Harness(Path tmp, String approvalsMode, Map<String, String> tools, List<Path> configElsewhere,
                    TestPostgres.Db postgres, Path sharedHome) throws Exception {
        this.postgres = postgres;
        home = sharedHome != null ? sharedHome : Files.createDirectories(tmp.resolve("home"));
        workspace = tmp.resolve("workspace");
        var settings = new HashMap<>(tools);
        settings.putIfAbsent("terminal.backend", "local");
        sandboxed = settings.get("terminal.backend").equals("sandbox");
        var builder = TestHost.builder().plugins("tool-terminal").home(home)
                .env("CADUCEUS__TOOLS__WORKSPACE", workspace.toString())
                .env("CADUCEUS__APPROVALS__MODE", approvalsMode)
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1");
        settings.forEach((key, value) ->
                builder.env("CADUCEUS__TOOLS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
        if (postgres != null) builder.env("CADUCEUS__DATABASE__URL", postgres.url());
        if (configElsewhere.size() > 1) throw new IllegalArgumentException("one --config file at most");
        configElsewhere.forEach(builder::configFile);
        host = builder.start();
        terminal = tool("terminal");
        process = tool("process");
    }

    private Tool tool(String name) {
        return host.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not offered: " + host.tools()));
    }

    /** The plugin's tables beside the running host (close it before this Harness). */
    TestDatabase database() {
        return postgres != null ? TestDatabase.attach(postgres, "tool-terminal")
                : TestDatabase.attach(home.resolve("caduceus.db"));
    }

    /** {@code relative} inside the workspace, as commands see it. */
    String view(String relative) throws IOException {
        var root = sandboxed ? "/workspace" : workspace.toRealPath().toString();
        return relative.isEmpty() ? root : root + "/" + relative;
    }

    /** Session {@code id} of the admin key: its terminal state (directory, exports, processes). */
    Session session(String id) {
        return new Session(id);
    }

    /** Calls {@code tool} with the given arguments (a JSON object text) in {@code session}; the raw result. */
    ToolResult call(Tool tool, Session session, String arguments) throws Exception {
        return host.callTool(new ToolCalls.Request(Caller.ADMIN_CALLER, session.sessionId(), List.of(),
                tool.spec().name(), (ObjectNode) json.readTree(arguments), session.cancellation()));
    }

    /** Runs a foreground command and parses the Ok result. */
    JsonNode run(Session session, String command) throws Exception {
        return ok(call(terminal, session, json.writeValueAsString(Map.of("command", command))));
    }

    JsonNode ok(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Ok ok)) throw new AssertionError("expected Ok, got " + result);
        return json.readTree(ok.content());
    }

    /** What the model reads: Ok content, or the {@code {"error": …}} of an error result. */
    static String content(ToolResult result) {
        return switch (result) {
            case ToolResult.Ok ok -> ok.content();
            case ToolResult.Error e -> e.message();
        };
    }

    /** The message of an error result ({@code error} of its {@code {"error": …}}). */
    String errorMessage(ToolResult result) throws Exception {
        if (!(result instanceof ToolResult.Error e)) throw new AssertionError("expected Error, got " + result);
        return json.readTree(e.message()).path("error").asText();
    }

    @Override
    public void close() {
        host.close();
    }
}
