package dev.caduceus.plugin.file;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.time.Duration;
import java.util.ArrayList;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The file plugin on the real host ({@link TestHost} with this module's jar): {@code $CADUCEUS_HOME}
 * is {@code <temp>/home} (what a test wrote there before is what the host finds at start), the
 * workspace {@code <temp>/home/workspace}, and each tool call goes through the host's dispatcher as a
 * direct call (its own run, session {@code session-1}), as endpoint-mcp's calls do. Closing it stops
 * the host.
 */
final class Fixture implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final String THROWN = "{\"error\": \"Tool execution failed: ";

    final Path home;
    final Path workspace;
    final TestHost host;
    private final ScriptedUpstream model;

    Fixture(Path temp, Map<String, String> toolsConfig) {
        this(temp, toolsConfig, List.of());
    }

    /** @param configElsewhere a configuration file given with {@code --config} (at most one) */
    Fixture(Path temp, Map<String, String> toolsConfig, List<Path> configElsewhere) {
        this(temp, toolsConfig, configElsewhere, null);
    }

    /**
     * With the model at {@code model} (provider-openai) and the runs family too, for {@link #turn}.
     * An unscripted model call answers {@code done}.
     */
    Fixture(Path temp, ScriptedUpstream model) {
        this(temp, Map.of(), List.of(), model);
    }

    private Fixture(Path temp, Map<String, String> toolsConfig, List<Path> configElsewhere, ScriptedUpstream model) {
        this.model = model;
        try {
            home = Files.createDirectories(temp.resolve("home"));
            workspace = home.resolve("workspace"); // the host creates it, private
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var builder = TestHost.builder().plugins("tool-file").home(home)
                .env("CADUCEUS__TOOLS__WORKSPACE", workspace.toString());
        toolsConfig.forEach((key, value) ->
                builder.env("CADUCEUS__TOOLS__" + key.toUpperCase(Locale.ROOT).replace(".", "__"), value));
        if (configElsewhere.size() > 1) throw new IllegalArgumentException("one --config file at most");
        configElsewhere.forEach(builder::configFile);
        if (model != null) builder.plugins("provider-openai", "endpoint-runs").model(model.setDefault(Turn.text("done")));
        host = builder.start();
    }

    Fixture(Path temp) {
        this(temp, Map.of());
    }

    /** The tools the host offers, by name. */
    List<Tool> tools() {
        return host.tools();
    }

    Tool tool(String name) {
        return tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    /** The raw result of one call. */
    ToolResult result(String name, String argsJson) {
        try {
            return host.callTool("session-1", name, argsJson);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The result as the model sees it: Ok content, or {"error": message} for Error. A thrown exception fails the test. */
    String text(String name, String argsJson) {
        var text = switch (result(name, argsJson)) {
            case ToolResult.Ok ok -> ok.content();
            case ToolResult.Error e -> e.message();
        };
        if (text.startsWith(THROWN)) throw new AssertionError("a tool must not throw: " + text);
        return text;
    }

    JsonNode json(String name, String argsJson) {
        try {
            var node = JSON.readTree(text(name, argsJson));
            assertNotNull(node);
            return node;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * One agent run ({@code POST /v1/runs}) whose model calls {@code name} with {@code argsJson}
     * {@code times} times in a row, one call per model step, then answers; returns what each call
     * answered, as the model saw it (the tool message of the following model request). Every call is
     * in the same run and session, as in a real turn.
     */
    List<String> turn(String name, String argsJson, int times) throws InterruptedException {
        int before = model.chatRequests().size();
        for (int i = 0; i < times; i++)
            model.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_" + i, name, argsJson)));
        model.enqueue(Turn.text("done"));
        var created = host.http().post("/v1/runs", "{\"input\":\"read it\"}");
        if (created.status() != 202) throw new AssertionError(created.body());
        var id = created.json().path("run_id").asText();
        Eventually.await(Duration.ofSeconds(20), "run " + id + " completes", () -> host.http().get("/v1/runs/" + id).json(),
                run -> run.path("status").asText().equals("completed"));
        var answers = new ArrayList<String>();
        for (var request : model.chatRequests().subList(before + 1, before + 1 + times))
            answers.add(request.body().path("messages").get(request.body().path("messages").size() - 1)
                    .path("content").asText());
        return answers;
    }

    /** JSON-quotes a string for building argument objects. */
    static String q(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        host.close();
    }
}
