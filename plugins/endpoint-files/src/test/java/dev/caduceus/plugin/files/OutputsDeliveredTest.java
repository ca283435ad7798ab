package dev.caduceus.plugin.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Files out of a turn without the tool: what a run's agent creates or changes under the workspace's {@code outputs/}
 * (here with {@code write_file}) is a file of the run's key when the run ends, listed by
 * {@code GET /v1/runs/{id}/artifacts}, served byte-identical, linked from a chat answer; files that were there
 * before and did not change are not; {@code deliver_file} of the same file keeps it once; a turn that calls no tool
 * delivers nothing; links and pipes the agent leaves under {@code outputs/} during the run deliver nothing;
 * {@code files.outputs_max_files} caps a run and {@code files.outputs: false} turns it off.
 */
@Timeout(120)
class OutputsDeliveredTest {
    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient client = HttpClient.newHttpClient();
    ScriptedUpstream upstream;
    TestHost host;

    void start(Map<String, String> env) {
        upstream = ScriptedUpstream.start();
        upstream.setDefault(Turn.text("done"));
        var builder = TestHost.builder().plugins("endpoint-files", "endpoint-runs", "endpoint-chat", "tool-file",
                "toolsets-hermes", "provider-openai").model(upstream).env("CADUCEUS__AGENT__TOOLSETS", "file,files");
        env.forEach(builder::env);
        host = builder.start();
    }

    @AfterEach
    void stop() {
        if (host != null) host.close();
        if (upstream != null) upstream.close();
    }

    HttpResponse<byte[]> send(String method, String path, String body) throws Exception {
        var request = HttpRequest.newBuilder(host.baseUrl().resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + host.apiKey()).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    JsonNode json(HttpResponse<byte[]> response) throws Exception {
        return JSON.readTree(response.body());
    }

    static Turn.ToolCall write(String id, String path, String content) {
        var arguments = JsonNodeFactory.instance.objectNode().put("path", path).put("content", content);
        return Turn.ToolCall.of(id, "write_file", arguments.toString());
    }

    /** Starts a run (whose model turns are already queued), waits for its end; its id. */
    String run() throws Exception {
        var created = send("POST", "/v1/runs", "{\"input\":\"make me a report\"}");
        assertEquals(202, created.statusCode(), new String(created.body()));
        var id = json(created).path("run_id").asText();
        Eventually.await(Duration.ofSeconds(30), "the run ended", () -> json(send("GET", "/v1/runs/" + id, null))
                .path("status").asText(), status -> status.equals("completed") || status.equals("failed"));
        return id;
    }

    /** The run's artifacts: file name to bytes (served by /v1/files/{id}/content). */
    Map<String, String> artifacts(String run) throws Exception {
        var files = new TreeMap<String, String>();
        for (var artifact : json(send("GET", "/v1/runs/" + run + "/artifacts", null)).path("data")) {
            var content = send("GET", "/v1/files/" + artifact.path("file_id").asText() + "/content", null);
            assertEquals(200, content.statusCode());
            files.put(artifact.path("filename").asText(), new String(content.body(), StandardCharsets.UTF_8));
        }
        return files;
    }

    @Test
    void whatTheAgentWritesUnderOutputsIsDeliveredAndWhatItDidNotTouchIsNot() throws Exception {
        start(Map.of());
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        Files.writeString(outputs.resolve("old.txt"), "from an earlier turn");
        Files.writeString(outputs.resolve("changed.txt"), "before");
        upstream.enqueue(Turn.toolCalls(write("c1", "outputs/report.md", "# Report\n\nAll good.\n"),
                        write("c2", "outputs/charts/data.csv", "a,b\n1,2\n"), write("c3", "outputs/changed.txt", "after!"),
                        write("c4", "notes/scratch.txt", "not an output")),
                Turn.text("Written."));
        var run = run();
        assertEquals(Map.of("report.md", "# Report\n\nAll good.\n", "data.csv", "a,b\n1,2\n", "changed.txt", "after!"),
                artifacts(run));
        var listed = json(send("GET", "/v1/files?purpose=assistants_output", null)).path("data");
        assertEquals(3, listed.size(), listed.toString());

        upstream.enqueue(Turn.text("Nothing to do."));
        Files.writeString(outputs.resolve("between.txt"), "written by no tool of a run");
        var textOnly = run();
        assertEquals(Map.of(), artifacts(textOnly), "a run that calls no tool is not watched");
    }

    /** A run that calls only read-only tools is not watched: a file that appears under outputs/ meanwhile is not its. */
    @Test
    void aRunOfReadOnlyToolsIsNotWatched() throws Exception {
        start(Map.of());
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        Files.writeString(host.workspace().resolve("note.txt"), "a note");
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("c1", "read_file", "{\"path\":\"note.txt\"}")));
        upstream.enqueue(request -> { // after the read, before the run ends
            try {
                Files.writeString(outputs.resolve("meanwhile.txt"), "not this run's");
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            return Turn.text("Read it.");
        });
        assertEquals(Map.of(), artifacts(run()));

        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("c1", "read_file", "{\"path\":\"note.txt\"}")),
                Turn.toolCalls(write("c2", "outputs/later.txt", "written after a read")), Turn.text("Done."));
        assertEquals(Map.of("later.txt", "written after a read"), artifacts(run()), "watched from the first write");
    }

    @Test
    void aChatAnswerLinksTheFilesItsAgentWroteUnderOutputs() throws Exception {
        start(Map.of());
        upstream.enqueue(Turn.toolCalls(write("c1", "/workspace/outputs/summary.txt", "three lines\nof\nsummary\n")),
                Turn.text("Here it is."));
        var answer = send("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"summarise\"}]}");
        assertEquals(200, answer.statusCode(), new String(answer.body()));
        var text = json(answer).path("choices").get(0).path("message").path("content").asText();
        var link = java.util.regex.Pattern.compile("\\*\\*Files\\*\\*\\n- \\[summary\\.txt\\]\\((http://[^)]+/download\\?[^)]+)\\)")
                .matcher(text);
        assertTrue(text.startsWith("Here it is.") && link.find(), text);
        var plain = client.send(HttpRequest.newBuilder(java.net.URI.create(link.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("three lines\nof\nsummary\n", plain.body());
    }

    @Test
    void aFileDeliveredWithTheToolIsKeptOnce() throws Exception {
        start(Map.of());
        upstream.enqueue(Turn.toolCalls(write("c1", "outputs/chart.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>")),
                Turn.toolCalls(Turn.ToolCall.of("c2", "deliver_file", "{\"path\":\"outputs/chart.svg\"}")),
                Turn.text("Delivered."));
        var run = run();
        var data = json(send("GET", "/v1/runs/" + run + "/artifacts", null)).path("data");
        assertEquals(1, data.size(), data.toString());
    }

    /**
     * The agent is untrusted: links it leaves under {@code outputs/} while the run goes on (to the server's database,
     * to the state directory) and a named pipe are never read; only the regular file it wrote is delivered.
     */
    @Test
    void linksAndPipesTheAgentLeavesUnderOutputsDeliverNothing() throws Exception {
        start(Map.of());
        var outputs = Files.createDirectories(host.workspace().resolve("outputs"));
        var database = host.home().resolve("caduceus.db");
        assertTrue(Files.isRegularFile(database), "the server's database is there to be tried");
        upstream.enqueue(Turn.toolCalls(write("c1", "outputs/real.txt", "mine")));
        upstream.enqueue(request -> { // the second model call: after the tool, before the run ends
            try {
                Files.createSymbolicLink(outputs.resolve("server.db"), database);
                Files.createSymbolicLink(outputs.resolve("state"), host.home());
                var fifo = new ProcessBuilder("mkfifo", outputs.resolve("pipe").toString()).start();
                assertEquals(0, fifo.waitFor());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return Turn.text("Done.");
        });
        var run = run();
        assertEquals(Map.of("real.txt", "mine"), artifacts(run));
        assertTrue(Files.isSymbolicLink(outputs.resolve("server.db")), "the test's links were in place");
    }

    @Test
    void aRunDeliversAtMostOutputsMaxFiles() throws Exception {
        start(Map.of("CADUCEUS__FILES__OUTPUTS_MAX_FILES", "2"));
        var calls = new ArrayList<Turn.ToolCall>();
        for (int i = 0; i < 5; i++) calls.add(write("c" + i, "outputs/f" + i + ".txt", "file " + i));
        upstream.enqueue(Turn.toolCalls(calls.toArray(Turn.ToolCall[]::new)), Turn.text("Five files."));
        var run = run();
        assertEquals(2, artifacts(run).size());
        assertEquals(5, Files.list(host.workspace().resolve("outputs")).count(), "the rest stay in the workspace");
    }

    @Test
    void filesOutputsOffDeliversNothingWithoutTheTool() throws Exception {
        start(Map.of("CADUCEUS__FILES__OUTPUTS", "false"));
        upstream.enqueue(Turn.toolCalls(write("c1", "outputs/report.md", "# Report")), Turn.text("Written."));
        var run = run();
        assertEquals(Map.of(), artifacts(run));
        assertTrue(Files.isRegularFile(host.workspace().resolve("outputs/report.md")), "the tool did write it");
    }

}
