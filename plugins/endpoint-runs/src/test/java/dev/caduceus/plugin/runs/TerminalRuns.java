package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestDatabase;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.postgres.TestPostgres;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The terminal tool in real runs with an approval channel: the host ({@link TestHost}: this plugin,
 * provider-openai at a {@link ScriptedUpstream}, tool-terminal on the local backend) runs one terminal
 * call per run in a session, and a person's answer is {@code POST /v1/runs/{id}/approval}. On SQLite
 * ({@code <tmp>/home}) or PostgreSQL; {@link #sameDatabase} is a restart or another node.
 */
final class TerminalRuns implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration DEADLINE = Duration.ofSeconds(20);

    final ScriptedUpstream upstream = ScriptedUpstream.start();
    final TestHost host;
    final Path home;
    final Path workspace;
    private final TestPostgres.Db postgres;

    /** A person's answers in one session, and the approval requests the runs showed them. */
    record Session(String id, ApprovalChoice answer, List<JsonNode> approvals) {
        Session(String id, ApprovalChoice answer) {
            this(id, answer, new CopyOnWriteArrayList<>());
        }
    }

    /** A fresh host on a fresh database of {@code dialect}; {@code env} more settings ({@code NAME, value, …}). */
    static TerminalRuns start(Path tmp, Dialect dialect, String mode, String... env) throws Exception {
        return new TerminalRuns(tmp, mode, dialect == Dialect.POSTGRESQL ? TestPostgres.shared().newDatabase() : null,
                Files.createDirectories(tmp.resolve("home")), env);
    }

    /** Another host on {@code same}'s database (its home on SQLite), its workspace under {@code tmp}. */
    static TerminalRuns sameDatabase(Path tmp, TerminalRuns same) throws Exception {
        return new TerminalRuns(tmp, "manual", same.postgres, same.home);
    }

    private TerminalRuns(Path tmp, String mode, TestPostgres.Db postgres, Path home, String... env) {
        this.postgres = postgres;
        this.home = home;
        this.workspace = tmp.resolve("workspace");
        upstream.setDefault(Turn.text("done"));
        var builder = TestHost.builder().plugins("endpoint-runs", "provider-openai", "tool-terminal").model(upstream)
                .home(home)
                .env("CADUCEUS__TOOLS__WORKSPACE", workspace.toString())
                .env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")
                .env("CADUCEUS__APPROVALS__MODE", mode)
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1");
        for (int i = 0; i + 1 < env.length; i += 2) builder.env(env[i], env[i + 1]);
        if (postgres != null) builder.env("CADUCEUS__DATABASE__URL", postgres.url());
        host = builder.start();
    }

    /**
     * One run in {@code session} whose model asks the terminal for {@code command}; an approval it waits
     * for is recorded in the session and answered with the session's answer ({@code TIMED_OUT}: not at
     * all, so it times out). Returns the terminal's result as the model saw it.
     */
    String runRaw(Session session, String command) throws Exception {
        int before = upstream.chatRequests().size();
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_t", "terminal",
                JSON.createObjectNode().put("command", command).toString())), Turn.text("done"));
        var created = host.http().post("/v1/runs", JSON.createObjectNode().put("input", "run it")
                .put("session_id", session.id()).toString());
        assertEquals(202, created.status(), created.body());
        var id = created.json().path("run_id").asText();
        var view = Eventually.await(DEADLINE, "run " + id + " waits or ends", () -> host.http().get("/v1/runs/" + id).json(),
                v -> List.of("completed", "failed", "waiting_for_approval").contains(v.path("status").asText()));
        if (view.path("status").asText().equals("waiting_for_approval")) {
            session.approvals().add(view.path("approval"));
            if (session.answer() != ApprovalChoice.TIMED_OUT) {
                var answered = host.http().post("/v1/runs/" + id + "/approval",
                        "{\"choice\":\"" + session.answer().name().toLowerCase(Locale.ROOT) + "\"}");
                assertEquals(200, answered.status(), answered.body());
            }
            view = Eventually.await(DEADLINE, "run " + id + " ends", () -> host.http().get("/v1/runs/" + id).json(),
                    v -> List.of("completed", "failed").contains(v.path("status").asText()));
        }
        assertEquals("completed", view.path("status").asText(), view.toString());
        var messages = upstream.chatRequests().get(before + 1).body().path("messages");
        var tool = messages.get(messages.size() - 1);
        assertEquals("tool", tool.path("role").asText(), messages.toString());
        return tool.path("content").asText();
    }

    JsonNode run(Session session, String command) throws Exception {
        return JSON.readTree(runRaw(session, command));
    }

    /** The number of rows of tool-terminal's {@code table}, read beside the running host as another process would. */
    long count(String table) throws Exception {
        var query = "SELECT COUNT(*) FROM " + table;
        if (postgres != null) {
            try (var c = postgres.connect(); var st = c.createStatement();
                 var rows = st.executeQuery("SELECT COUNT(*) FROM caduceus_tool_terminal." + table)) { // its schema
                rows.next();
                return rows.getLong(1);
            }
        }
        try (var db = TestDatabase.attach(home.resolve("caduceus.db"))) {
            return db.read(sql -> sql.queryOne(query, r -> r.getLong(1))).orElseThrow();
        }
    }

    @Override
    public void close() {
        try {
            host.close();
        } finally {
            upstream.close();
        }
    }
}
