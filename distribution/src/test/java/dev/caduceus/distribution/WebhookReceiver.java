package dev.caduceus.distribution;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A webhook receiver as a user would run one: {@code webhook-receiver.mjs}, which checks every request with
 * the npm Standard Webhooks library ({@code standardwebhooks}) under {@code secret} and answers 204 when the
 * signature holds (401 when not, or what its path asks for). Each request it saw is one JSON line
 * ({@code id}, {@code attempt}, {@code verified}, {@code type}, {@code payload}, {@code status}).
 */
final class WebhookReceiver implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private final Process process;
    private final LinkedBlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    private final StringBuilder output = new StringBuilder();
    final int port;

    private WebhookReceiver(Process process) throws Exception {
        this.process = process;
        var reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        var first = reader.readLine();
        assertTrue(first != null && first.startsWith("{\"port\":"), "the receiver did not start: " + first);
        port = JSON.readTree(first).get("port").asInt();
        Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = reader.readLine()) != null; ) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.startsWith("{")) lines.add(JSON.readTree(line));
                }
            } catch (Exception e) {
                // the process ended
            }
        });
    }

    /** Starts a receiver that verifies with {@code secret} (a {@code whsec_} secret). */
    static WebhookReceiver start(String secret) throws Exception {
        return start(secret, null);
    }

    /** As {@link #start(String)}; {@code /gated} answers 503 until {@code gate} exists. */
    static WebhookReceiver start(String secret, java.nio.file.Path gate) throws Exception {
        return start(secret, gate, null);
    }

    /** As {@link #start(String, java.nio.file.Path)}; {@code /hermes…} checks Hermes' signature with {@code hermesSecret}. */
    static WebhookReceiver start(String secret, java.nio.file.Path gate, String hermesSecret) throws Exception {
        var script = NodeAgents.install("webhook-receiver.mjs");
        var builder = new ProcessBuilder("node", script.toString()).directory(NodeAgents.DIR.toFile()).redirectErrorStream(true);
        builder.environment().put("WEBHOOK_SECRET", secret);
        if (gate != null) builder.environment().put("WEBHOOK_GATE", gate.toString());
        if (hermesSecret != null) builder.environment().put("WEBHOOK_HERMES_SECRET", hermesSecret);
        return new WebhookReceiver(builder.start());
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** The next request it saw, waiting up to {@code wait}; fails the test when none came. */
    JsonNode next(Duration wait) throws InterruptedException {
        var line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(line != null, "no webhook within " + wait + "; the receiver printed:\n" + output());
        return line;
    }

    /** The requests seen so far and not yet taken. */
    List<JsonNode> drain() {
        var out = new ArrayList<JsonNode>();
        lines.drainTo(out);
        return out;
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
