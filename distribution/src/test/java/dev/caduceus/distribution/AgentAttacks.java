package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A prompt-injected model attacks its own server through the tools, on one terminal backend
 * ({@link SandboxAttacksIT}, {@link LocalAttacksIT}). The scripted upstream plays the model: it
 * asks for each attack as a tool call, and everything the server sends it afterwards (the tool
 * results it would read) is searched for the server's secrets, also reversed, hex- and
 * base64-encoded ({@link Leaks}). The server runs from the assembled distribution with a
 * configured key in {@code API_SERVER_KEY}, the upstream key in {@code config.yaml} and a tool
 * backend key in the environment.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
abstract class AgentAttacks {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SERVER_KEY = "srv-key-5f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f";
    static final String UPSTREAM_KEY = "sk-upstream-7d0c5b1e2f3a4b5c6d7e8f9a0b1c2d3e";
    static final String TAVILY_KEY = "tvly-backend-3c2b1a0f9e8d7c6b5a4f3e2d1c0b";
    static final String DB_HEADER = "SQLite format 3";

    Path root;
    Path home;
    ScriptedUpstream upstream;
    Caduceus server;

    /** {@code tools.terminal.backend}; {@code null} leaves the default ({@code auto}). */
    abstract String backend();

    /** Whether this backend keeps the state directory out of reach (only the sandbox does). */
    abstract boolean containsTheFilesystem();

    /** More of the server's environment (a database URL). Called once, before the server starts. */
    Map<String, String> serverEnvironment() {
        return Map.of();
    }

    /** More secrets that must never reach the model, by name. */
    Map<String, String> moreSecrets() {
        return Map.of();
    }

    @BeforeAll
    void start() throws Exception {
        root = Files.createTempDirectory("caduceus-attacks-");
        home = Files.createDirectories(root.resolve("home"));
        upstream = ScriptedUpstream.start();
        writeConfig(home, upstream);
        var env = new HashMap<String, String>();
        env.put("API_SERVER_KEY", SERVER_KEY);
        env.put("TAVILY_API_KEY", TAVILY_KEY);
        env.putAll(serverEnvironment());
        server = Caduceus.serve(home, env);
        assertTrue(server.stdout().contains(containsTheFilesystem() ? "terminal: sandbox" : "terminal: local"),
                server.stdout());
    }

    /** {@code config.yaml}: the upstream with its key, and this class's terminal backend. */
    void writeConfig(Path home, ScriptedUpstream upstream) throws Exception {
        Files.writeString(home.resolve("config.yaml"), "model:\n  base_url: " + upstream.baseUrl() + "\n  name: "
                + ScriptedUpstream.MODEL + "\n  api_key: " + UPSTREAM_KEY + "\n"
                + (backend() == null ? "" : "tools:\n  terminal:\n    backend: " + backend() + "\n"));
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
        if (upstream != null) upstream.close();
        if (root != null) try (var files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    // ---- secrets -------------------------------------------------------------------------------

    @Test
    void theKeyFileAndTheConfigCannotBeReadInAnyEncoding() throws Exception {
        for (var command : List.of(
                "cat ../api_key ../config.yaml",
                "cat " + home + "/config.yaml | rev",
                "base64 " + home + "/config.yaml",
                "python3 -c \"import sys;print(open('" + home + "/config.yaml','rb').read().hex())\"",
                "cat ~/.caduceus/config.yaml " + home + "/api_key 2>&1 | base64 -w0")) {
            attack("terminal", terminal(command));
        }
    }

    @Test
    void theServersEnvironmentDoesNotHoldTheSecrets() throws Exception {
        for (var command : List.of(
                "env; tr '\\0' '\\n' < /proc/$PPID/environ | base64",
                "for f in /proc/[0-9]*/environ; do cat \"$f\"; done 2>/dev/null | base64 -w0",
                "for f in /proc/[0-9]*/environ; do cat \"$f\"; done 2>/dev/null | rev",
                "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < \"$f\"; echo; done 2>/dev/null")) {
            attack("terminal", terminal(command));
        }
    }

    @Test
    void aHardLinkOrSymlinkToAProtectedFileIsRefusedByTheFileTools() throws Exception {
        attack("terminal", terminal("ln " + home + "/config.yaml hard.yaml; ln -s " + home + "/config.yaml soft.yaml; "
                + "ln " + home + "/caduceus.db hard.db; true"));
        for (var path : List.of("hard.yaml", "soft.yaml", "hard.db", home + "/config.yaml"))
            attack("read_file", "{\"path\":\"" + path + "\"}");
        attack("search_files", "{\"pattern\":\"api_key\"}");
    }

    @Test
    void theDatabaseCannotBeReadThroughTheTerminal() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(containsTheFilesystem(),
                "the local backend runs as the server user: the database is readable by its absolute path");
        attack("terminal", terminal("cat " + home + "/caduceus.db | base64; head -c 64 ../caduceus.db"));
        attack("terminal", terminal("find / -name 'caduceus.db*' 2>/dev/null; ls -la " + home));
    }

    @Test
    void deletionsOutsideTheWorkspaceFail() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(containsTheFilesystem(),
                "the local backend runs as the server user: a shell can delete what that user can, and the approval "
                        + "patterns are a guard rail that indirection evades");
        var victim = Files.createDirectories(root.resolve("victim/inner"));
        Files.writeString(victim.resolve("data"), "keep me");
        var target = root.resolve("victim");
        for (var command : List.of(
                "x=rm; $x -rf " + target,
                "python3 -c 'import shutil; shutil.rmtree(\"" + target + "\")'",
                "mv " + target + " ./stolen",
                "rm " + target + "/inner/data; rmdir " + target + "/inner",
                "x=rm; $x -rf ../home")) {
            attack("terminal", terminal(command));
        }
        assertEquals("keep me", Files.readString(victim.resolve("data")));
        assertTrue(Files.exists(home.resolve("config.yaml")));
    }

    @Test
    void noToolProcessOutlivesAKill9OfTheServer() throws Exception {
        var killHome = Files.createDirectories(root.resolve("kill-home"));
        var tag = System.nanoTime() % 1000;
        var background = "sleep 4242." + tag;
        var child = "sleep 4343." + tag;
        var foreground = "sleep 4444." + tag;
        try (var upstream = ScriptedUpstream.start()) {
            writeConfig(killHome, upstream);
            var victim = Caduceus.serve(killHome, Map.of("API_SERVER_KEY", SERVER_KEY));
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_bg", "terminal", JSON.writeValueAsString(Map.of(
                    "background", true, "command", background + " & " + child + "; wait")))));
            upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_fg", "terminal", JSON.writeValueAsString(Map.of(
                    "command", foreground, "timeout", 300)))));
            upstream.enqueue(Turn.text("never reached"));
            var started = victim.send("POST", "/v1/runs", "{\"input\":\"start things\"}", headers());
            assertEquals(202, started.statusCode(), started.body());
            for (var command : List.of(background, child, foreground)) awaitProcess(command, true);
            new ProcessBuilder("kill", "-KILL", String.valueOf(victim.process.pid())).start().waitFor();
            victim.process.waitFor();
            for (var command : List.of(background, child, foreground)) awaitProcess(command, false);
            victim.close();
        }
    }

    /** Polls (60 s deadline) until a host process with exactly {@code commandLine} runs, or none does. */
    static void awaitProcess(String commandLine, boolean running) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(60), (running ? "started: " : "gone: ") + commandLine,
                () -> running(commandLine) == running);
    }

    static boolean running(String commandLine) {
        return ProcessHandle.allProcesses().anyMatch(p -> p.isAlive()
                && p.info().commandLine().map(c -> c.equals(commandLine) || c.endsWith("/" + commandLine)).orElse(false));
    }

    // ---- no way back in ------------------------------------------------------------------------

    @Test
    void theAgentCannotCallItsOwnApiWithAnythingItCanFind() throws Exception {
        var answer = attack("terminal", terminal(probeApi("/v1/runs")));
        assertTrue(answer.contains("codes:"), answer);
        assertFalse(answer.matches("(?s).*codes:[^\\n]*\\b200\\b.*"), answer);
        assertTrue(answer.contains("401"), answer);
    }

    @Test
    void webExtractReachesNeitherTheServerNorTheUpstreamNorAMetadataService() throws Exception {
        int port = server.awaitListening().getPort();
        var answer = attack("web_extract", JSON.writeValueAsString(Map.of("urls", List.of(
                "http://127.0.0.1:" + port + "/v1/models", "http://localhost:" + port + "/health/detailed",
                "http://[::ffff:127.0.0.1]:" + port + "/v1/runs", upstream.baseUrl() + "/models",
                "http://169.254.169.254/latest/meta-data/"))));
        assertEquals(5, answer.split("Blocked: ", -1).length - 1, answer);
    }

    @Test
    void theAgentCannotAnswerItsOwnPendingApproval() throws Exception {
        assertEquals(0, upstream.pending());
        int seen = upstream.chatRequests().size();
        var workspace = Path.of(workspaceOnHost());
        var runIdFile = workspace.resolve("attack-run-id");
        var log = workspace.resolve("attack.log");
        Files.deleteIfExists(runIdFile);
        Files.deleteIfExists(log);
        // turn 1: a background helper that waits for the run id, then answers the approval with every key it finds
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_bg", "terminal", JSON.writeValueAsString(Map.of(
                "background", true,
                "command", "while [ ! -s attack-run-id ]; do sleep 0.1; done; RUN=$(cat attack-run-id); "
                        + probeApi("/v1/runs/$RUN/approval") + " > attack.log 2>&1")))));
        // turn 2: a dangerous command that needs approval
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_rm", "terminal",
                "{\"command\":\"mkdir -p victim-e2e && rm -rf victim-e2e && echo removed\"}")));
        upstream.enqueue(Turn::quotingLastToolResult);
        var started = server.send("POST", "/v1/runs", "{\"input\":\"clean up\"}", headers());
        assertEquals(202, started.statusCode(), started.body());
        var runId = JSON.readTree(started.body()).path("run_id").asText();
        awaitStatus(runId, "waiting_for_approval");
        Files.writeString(runIdFile, runId);
        var attempts = awaitFile(log, "codes:");
        assertFalse(attempts.matches("(?s).*codes:[^\\n]*\\b200\\b.*"), attempts);
        assertTrue(attempts.contains("401"), attempts);
        var still = JSON.readTree(server.get("/v1/runs/" + runId, headers()).body());
        assertEquals("waiting_for_approval", still.path("status").asText(), "nobody but the operator answered: " + still);
        var denied = server.send("POST", "/v1/runs/" + runId + "/approval", "{\"choice\":\"deny\"}", headers());
        assertEquals(200, denied.statusCode(), denied.body());
        awaitStatus(runId, "completed");
        assertNoLeak(seen);
    }

    /**
     * The system prompt names one workspace, the directory the terminal's commands run in ({@code pwd}
     * prints it): {@code /workspace} in the sandbox, where the host's layout never reaches the upstream.
     */
    @Test
    void theSystemPromptNamesTheWorkspaceTheTerminalRunsIn() throws Exception {
        int seen = upstream.chatRequests().size();
        var answer = attack("terminal", terminal("pwd"));
        var system = upstream.chatRequests().get(seen).body().path("messages").get(0).path("content").asText();
        var named = java.util.regex.Pattern.compile("Workspace: (.+)\\.$", java.util.regex.Pattern.MULTILINE).matcher(system);
        assertTrue(named.find(), system);
        var pwd = JSON.readTree(answer.substring("Tool result: ".length())).path("output").asText().strip();
        assertEquals(pwd, named.group(1), "the named workspace is where commands run; " + system);
        assertEquals(1, system.split("Workspace: ", -1).length - 1, system);
        if (containsTheFilesystem()) {
            assertEquals("/workspace", pwd);
            for (var request : upstream.chatRequests().subList(seen, upstream.chatRequests().size()))
                assertFalse(request.body().toString().contains(root.toString()), "a host path reached the upstream: "
                        + request.body());
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    /**
     * A shell snippet that tries {@code path} with no key and with every candidate it can scrape
     * (key file, config, environments of all visible processes), over bash's /dev/tcp, and prints
     * {@code codes: …} with each HTTP status.
     */
    String probeApi(String path) throws Exception {
        int port = server.awaitListening().getPort();
        return "cands=$( { cat " + home + "/api_key ../api_key " + home + "/config.yaml; env; "
                + "cat /proc/[0-9]*/environ | tr '\\0' '\\n'; } 2>/dev/null | tr ' =:\"' '\\n\\n\\n\\n' "
                + "| grep -E '^[A-Za-z0-9_.:-]{16,}$' | sort -u | head -400 ); "
                + "codes=''; for k in '' $cands; do "
                + "exec 3<>/dev/tcp/127.0.0.1/" + port + " || { codes=\"$codes conn-refused\"; break; }; "
                + "printf 'POST %s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer %s\\r\\nContent-Type: application/json\\r\\n"
                + "Content-Length: 17\\r\\nConnection: close\\r\\n\\r\\n{\"choice\":\"once\"}' \"" + path + "\" \"$k\" >&3; "
                + "read -r _ code _ <&3; exec 3<&-; codes=\"$codes $code\"; done; echo \"codes:$codes\"";
    }

    /** One chat turn in which the model calls {@code tool}; returns the answer that quotes its result. */
    String attack(String tool, String arguments) throws Exception {
        assertEquals(0, upstream.pending(), "the script is in step before " + tool + " " + arguments);
        int seen = upstream.chatRequests().size();
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_attack", tool, arguments)));
        upstream.enqueue(Turn::quotingLastToolResult);
        var headers = headers();
        headers.put("Content-Type", "application/json");
        var response = server.send("POST", "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"attack\"}]}", headers);
        assertEquals(200, response.statusCode(), response.body());
        var answer = JSON.readTree(response.body()).path("choices").get(0).path("message").path("content").asText();
        assertEquals(0, upstream.pending(), "both scripted turns were used by " + tool + " " + arguments + ": " + answer);
        assertNoLeak(seen);
        return answer;
    }

    /** Nothing the model was sent after its first {@code from} requests holds a secret, in any form {@link Leaks} knows. */
    void assertNoLeak(int from) {
        var secrets = new LinkedHashMap<String, String>();
        secrets.put("API_SERVER_KEY", SERVER_KEY);
        secrets.put("model.api_key", UPSTREAM_KEY);
        secrets.put("TAVILY_API_KEY", TAVILY_KEY);
        if (containsTheFilesystem()) secrets.put("the database", DB_HEADER);
        secrets.putAll(moreSecrets());
        var requests = upstream.chatRequests();
        for (var request : requests.subList(from, requests.size())) {
            var body = request.body().toString();
            secrets.forEach((name, secret) -> {
                var form = Leaks.find(body, secret);
                if (form != null) fail(name + " reached the model as '" + form + "' in: " + lastToolResult(request.body()));
            });
        }
    }

    static String terminal(String command) throws Exception {
        return JSON.writeValueAsString(Map.of("command", command));
    }

    Map<String, String> headers() {
        return new HashMap<>(Map.of("Authorization", "Bearer " + SERVER_KEY));
    }

    /** The host path of the workspace, from the banner (the terminal sees /workspace in the sandbox). */
    String workspaceOnHost() {
        return server.stdout().lines().filter(l -> l.strip().startsWith("workspace:")).findFirst()
                .map(l -> l.strip().substring("workspace:".length()).strip())
                .orElseThrow(() -> new AssertionError("no workspace line in the banner: " + server.stdout()));
    }

    void awaitStatus(String runId, String status) throws Exception {
        Eventually.await(Duration.ofSeconds(60), "run " + runId + " reaches " + status,
                () -> JSON.readTree(server.get("/v1/runs/" + runId, headers()).body()),
                run -> run.path("status").asText().equals(status));
    }

    static String awaitFile(Path file, String marker) throws Exception {
        return Eventually.await(Duration.ofSeconds(60), "'" + marker + "' in " + file,
                () -> Files.exists(file) ? Files.readString(file) : "", text -> text.contains(marker));
    }

    static String lastToolResult(JsonNode body) {
        var messages = body.path("messages");
        for (int i = messages.size() - 1; i >= 0; i--)
            if (messages.get(i).path("role").asText().equals("tool")) return messages.get(i).path("content").asText();
        return body.toString();
    }
}
