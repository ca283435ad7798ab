package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.SseStream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The runs family on the real host ({@link TestHost}: this plugin's jar, provider-openai for the
 * model, tool-terminal for real approvals) with a {@link ScriptedUpstream} as the model, and one call
 * helper per route. One per test class; tests run one at a time, each waiting for the runs it starts,
 * so the upstream's queue answers them in order. An unscripted model call answers {@code ok}.
 */
final class RunsHost implements AutoCloseable {
    static final Duration DEADLINE = Duration.ofSeconds(20);

    final ScriptedUpstream upstream = ScriptedUpstream.start();
    final TestHost host;
    final HostClient http;

    private RunsHost(UnaryOperator<TestHost.Builder> more) {
        upstream.setDefault(Turn.text("ok"));
        host = more.apply(TestHost.builder().plugins("endpoint-runs", "provider-openai", "tool-terminal")
                .model(upstream)
                .env("CADUCEUS__TOOLS__TERMINAL__BACKEND", "local")      // approvals, not sandbox probes
                .env("CADUCEUS__SERVER__DRAIN_TIMEOUT_SECONDS", "1"))    // runs left waiting end at close
                .start();
        http = host.http();
    }

    static RunsHost start() {
        return new RunsHost(b -> b);
    }

    static RunsHost start(UnaryOperator<TestHost.Builder> more) {
        return new RunsHost(more);
    }

    HostClient.Response submit(String body, String... headers) {
        return http.post("/v1/runs", body, headers);
    }

    /** {@link #submit} over a raw socket, for header values the JDK client refuses to send. */
    HostClient.Response submitRaw(String body, String... headers) {
        return http.raw("POST", "/v1/runs", body, headers);
    }

    HostClient.Response list(String query) {
        return http.get("/v1/runs" + (query.isEmpty() ? "" : "?" + query));
    }

    HostClient.Response status(String id) {
        return http.get("/v1/runs/" + id);
    }

    SseStream events(String id, String... headers) {
        return http.sse("/v1/runs/" + id + "/events", headers);
    }

    SseStream eventsWithQuery(String id, String query, String... headers) {
        return http.sse("/v1/runs/" + id + "/events?" + query, headers);
    }

    HostClient.Response approval(String id, String body) {
        return http.post("/v1/runs/" + id + "/approval", body);
    }

    HostClient.Response steer(String id, String body) {
        return http.post("/v1/runs/" + id + "/steer", body);
    }

    HostClient.Response stop(String id, String body) {
        return http.post("/v1/runs/" + id + "/stop", body);
    }

    /** Submits {@code body}, expects 202 started, and returns the run id. */
    String started(String body, String... headers) {
        var created = submit(body, headers);
        assertEquals(202, created.status(), created.body());
        assertEquals("started", created.json().path("status").asText(), created.body());
        return created.json().path("run_id").asText();
    }

    /** A run whose model answers {@code text}, waited for until it completed. */
    String completedRun(String text) throws InterruptedException {
        upstream.enqueue(Turn.text(text));
        var id = started("{\"input\":\"hi\"}");
        awaitStatus(id, "completed");
        return id;
    }

    /**
     * A run whose model asks the terminal for {@code command} (a dangerous one), waited for until it is
     * {@code waiting_for_approval}; its approval request is returned. Answering it lets the run finish.
     */
    JsonNode pendingApproval(String command) throws InterruptedException {
        upstream.enqueue(Turn.toolCalls(Turn.ToolCall.of("call_a", "terminal",
                "{\"command\":" + quote(command) + "}")));
        var id = started("{\"input\":\"clean up\"}");
        var waiting = awaitStatus(id, "waiting_for_approval");
        return ((com.fasterxml.jackson.databind.node.ObjectNode) waiting.path("approval").deepCopy()).put("run_id", id);
    }

    /** Polls the run until its status is {@code status}; returns the status document. */
    JsonNode awaitStatus(String id, String status) throws InterruptedException {
        return Eventually.await(DEADLINE, "run " + id + " becomes " + status, () -> status(id).json(),
                view -> view.path("status").asText().equals(status));
    }

    /** The messages of the last model request, without the system prompt, as {@code role:text|…}. */
    String lastModelMessages() {
        var sb = new StringBuilder();
        for (var m : lastModelRequest().path("messages")) {
            if (m.path("role").asText().equals("system")) continue;
            sb.append(m.path("role").asText()).append(':').append(text(m.path("content"))).append('|');
        }
        return sb.toString();
    }

    JsonNode lastModelRequest() {
        return upstream.chatRequests().getLast().body();
    }

    private static String text(JsonNode content) {
        if (content.isTextual()) return content.asText();
        var parts = new ArrayList<String>();
        content.forEach(p -> { if (p.has("text")) parts.add(p.path("text").asText()); });
        return String.join("+", parts);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static List<String> ids(JsonNode page) {
        var ids = new ArrayList<String>();
        page.path("data").forEach(run -> ids.add(run.path("run_id").asText()));
        return ids;
    }

    /** The contract's error shape with {@code status} and {@code code} (and {@code message} unless null). */
    static void assertError(HostClient.Response response, int status, String code, String message) {
        assertEquals(status, response.status(), response.body());
        var error = response.error();
        assertTrue(error.has("message") && error.has("type") && error.has("code"), response.body());
        assertEquals(code, error.path("code").asText(), response.body());
        if (message != null) assertEquals(message, error.path("message").asText());
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
