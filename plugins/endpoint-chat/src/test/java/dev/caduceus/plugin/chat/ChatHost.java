package dev.caduceus.plugin.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.testkit.Eventually;
import dev.caduceus.platform.testkit.HostClient;
import dev.caduceus.platform.testkit.ScriptedUpstream;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.platform.testkit.Turn;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The chat plugin on the real host ({@link TestHost}: real run service, agent loop and provider),
 * its model a {@link ScriptedUpstream}. What the plugin handed the run is read where it ends up: the
 * upstream's recorded request (system prompt, messages, model, options, {@code stream}). Settings are
 * environment variables ({@code CADUCEUS__CHAT__TOOL_PROGRESS}), fixed at boot, so each setting
 * combination is its own host. Test methods of one class share a host and run one at a time: each
 * {@link #reset()}s the upstream's queue first. Lifecycle: {@link #start}, {@link #close}.
 */
final class ChatHost implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String PATH = "/v1/chat/completions";
    static final String USER_HI = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** What the scripted model reports for a turn's last call (and 0 for earlier ones). */
    static final int PROMPT_TOKENS = 1830;
    static final int COMPLETION_TOKENS = 95;

    final ScriptedUpstream upstream;
    final TestHost host;

    private ChatHost(ScriptedUpstream upstream, TestHost host) {
        this.upstream = upstream;
        this.host = host;
    }

    /** A host with the chat plugin and {@code env} (name, value, …) on top of the defaults. */
    static ChatHost start(String... env) {
        return withPlugins(List.of(), env);
    }

    /** A host with the chat plugin, the {@code plugins} and {@code env} (name, value, …) on top of the defaults. */
    static ChatHost withPlugins(List<String> plugins, String... env) {
        var upstream = ScriptedUpstream.start();
        try {
            var builder = TestHost.builder().plugins("endpoint-chat", "provider-openai").model(upstream);
            plugins.forEach(builder::plugins);
            for (int i = 0; i < env.length; i += 2) builder.env(env[i], env[i + 1]);
            return new ChatHost(upstream, builder.start());
        } catch (RuntimeException e) {
            upstream.close();
            throw e;
        }
    }

    HostClient http() {
        return host.http();
    }

    /** Drops turns a failed test left queued. */
    void reset() {
        upstream.clearQueue();
    }

    /** Queues a plain answer with the test usage. */
    ChatHost answers(String text) {
        upstream.enqueue(Turn.text(text).usage(PROMPT_TOKENS, COMPLETION_TOKENS));
        return this;
    }

    HostClient.Response post(String body, String... headers) {
        return http().post(PATH, body, headers);
    }

    /** The chat requests the model has received so far. */
    int modelCalls() {
        return upstream.chatRequests().size();
    }

    /** The body of the model's latest request: what the run sent for the turn. */
    JsonNode lastModelRequest() {
        return upstream.chatRequests().getLast().body();
    }

    /** The latest model request's messages after the system prompt, as {@code role:text|…}. */
    String lastModelMessages() {
        var sb = new StringBuilder();
        var messages = lastModelRequest().path("messages");
        for (int i = 1; i < messages.size(); i++)
            sb.append(messages.get(i).path("role").asText()).append(':').append(messages.get(i).path("content").asText())
                    .append('|');
        return sb.toString();
    }

    /** The system prompt the latest model request began with. */
    String lastSystemPrompt() {
        var first = lastModelRequest().path("messages").path(0);
        if (!first.path("role").asText().equals("system")) throw new AssertionError("no system prompt: " + first);
        return first.path("content").asText();
    }

    /** Runs in flight on the host ({@code /health/detailed} {@code active_agents}). */
    int activeRuns() throws IOException {
        return http().get("/health/detailed").json().path("active_agents").asInt();
    }

    /** Returns once no run is in flight; fails after 10 s. */
    void awaitNoActiveRun(String what) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(10), what, () -> activeRuns() == 0);
    }

    /**
     * Sends {@code body} as a non-streaming chat request on a raw socket and returns the socket, so
     * that the test can hang up while the host works (closing it is the client leaving).
     */
    Socket postRaw(String body) throws IOException {
        var socket = new Socket(host.baseUrl().getHost(), host.baseUrl().getPort());
        socket.setSoTimeout(10_000);
        var bytes = body.getBytes(StandardCharsets.UTF_8);
        var head = "POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + host.apiKey()
                + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    /** The first answer to {@code body} that says 503 while the host drains ({@link TestHost#answerWhileDraining}). */
    java.net.http.HttpResponse<String> answerWhileDraining(String body) throws Exception {
        var held = new dev.caduceus.platform.testkit.HeldTurn(Turn.text("finishing"));
        upstream.enqueue(held);
        return host.answerWhileDraining(held, PATH, USER_HI, body, this::close);
    }

    /**
     * An SSE body as wire lines, one per frame: {@code data: …}, {@code event: NAME data: …} or
     * {@code : comment}; the random completion id becomes {@code chatcmpl-ID} and {@code created}
     * becomes {@code 0} (the real clock's second).
     */
    static List<String> wire(String body) {
        var lines = new ArrayList<String>();
        for (var frame : body.split("\n\n")) {
            if (frame.isBlank()) continue;
            String event = null;
            var data = new StringBuilder();
            var comments = new ArrayList<String>();
            for (var line : frame.split("\n")) {
                if (line.startsWith(":")) comments.add(": " + line.substring(1).strip());
                else if (line.startsWith("event:")) event = line.substring(6).strip();
                else if (line.startsWith("data:")) data.append(data.isEmpty() ? "" : "\n").append(line.substring(5).strip());
            }
            lines.addAll(comments);
            if (!data.isEmpty()) lines.add((event == null ? "" : "event: " + event + " ") + "data: " + data);
        }
        return lines.stream().map(l -> l.replaceAll("chatcmpl-[0-9a-f]{29}", "chatcmpl-ID")
                .replaceAll("\"created\":\\d+", "\"created\":0")).toList();
    }

    /** The JSON of the {@code data:} frames (not {@code [DONE]}), in order. */
    static List<JsonNode> chunks(String body) throws IOException {
        var chunks = new ArrayList<JsonNode>();
        for (var line : wire(body)) {
            var at = line.indexOf("data: {");
            if (at >= 0) chunks.add(JSON.readTree(line.substring(at + 6)));
        }
        return chunks;
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
