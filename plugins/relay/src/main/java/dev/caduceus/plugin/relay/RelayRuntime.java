package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.Message;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.agent.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@code relay} runtime: one remote streaming chat completion per agent turn (contract §15).
 * The remote's frames become run events ({@link RemoteTurn}); its failures become failed runs with
 * {@code proxy_unreachable}, {@code proxy_auth_failed}, {@code proxy_error} or {@code proxy_timeout},
 * with messages that never contain the proxy key. A stop, client disconnect or shutdown (the run's
 * cancellation) closes the remote request at once.
 *
 * <p>Threading: shared by all run threads; {@link #execute} keeps its state on the calling thread.
 */
final class RelayRuntime implements AgentRuntime, AutoCloseable {
    static final int MAX_ERROR_CHARS = 300;
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final RelaySettings settings;
    private final ObjectMapper json;
    private HttpClient http; // built on first call: building one initialises the JDK's default TLS context (loads and parses the CA certificates, ~0.15 s of a cold start); guarded by this
    private final ScheduledExecutorService timer;

    RelayRuntime(RelaySettings settings, ObjectMapper json) {
        this.settings = settings;
        this.json = json;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            var t = new Thread(r, "relay-deadlines");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String id() {
        return "relay";
    }

    RelaySettings settings() {
        return settings;
    }

    @Override
    public RunResult execute(RunRequest request, RunContext context) throws Exception {
        if (settings.target() == null)
            return failed("proxy_unreachable", "gateway.proxy_url is not set", null, Usage.ZERO);
        var turn = new RemoteTurn(json, context);
        try (var call = RemoteCall.send(http(), RelayRequest.build(settings, json, request), context.cancellation(),
                timer, settings.readTimeout())) {
            HttpResponse<InputStream> response;
            try {
                response = call.response();
            } catch (IOException e) {
                if (call.cancelled()) return cancelled(turn);
                if (call.timedOut())
                    return failed("proxy_timeout", "The remote agent server sent nothing for "
                            + settings.readTimeout().toSeconds() + " s", null, Usage.ZERO);
                if (e instanceof HttpConnectTimeoutException || e instanceof ConnectException
                        || e.getCause() instanceof ConnectException)
                    return failed("proxy_unreachable", "The remote agent server " + settings.origin()
                            + " is unreachable (" + e.getClass().getSimpleName() + ")", null, Usage.ZERO);
                return failed("proxy_unreachable", "The remote agent server " + settings.origin()
                        + " is unreachable: " + clip(e.getMessage()), null, Usage.ZERO);
            }
            int status = response.statusCode();
            if (status / 100 != 2) {
                var message = errorMessage(response.body());
                var code = status == 401 || status == 403 ? "proxy_auth_failed" : "proxy_error";
                return failed(code, "The remote agent server answered " + status + ": " + message, null, Usage.ZERO);
            }
            try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    call.touched();
                    if (turn.line(line)) break;
                }
            } catch (IOException e) {
                if (call.cancelled()) return cancelled(turn);
                if (call.timedOut())
                    return failed("proxy_timeout", "The remote agent server sent nothing for "
                            + settings.readTimeout().toSeconds() + " s", turn.output(), turn.usage());
                if (!turn.finished())
                    return failed("proxy_error", "The remote stream broke: " + e.getClass().getSimpleName(),
                            turn.output(), turn.usage());
            } catch (RemoteTurn.Malformed e) {
                return failed("proxy_error", "The remote agent server sent a malformed stream: " + clip(e.getMessage()),
                        turn.output(), turn.usage());
            }
            if (call.cancelled()) return cancelled(turn);
            if (call.timedOut() && !turn.finished())
                return failed("proxy_timeout", "The remote agent server sent nothing for "
                        + settings.readTimeout().toSeconds() + " s", turn.output(), turn.usage());
            return result(turn);
        }
    }

    private RunResult result(RemoteTurn turn) {
        var output = turn.output();
        var messages = output.isEmpty() ? List.<Message>of() : List.of(Message.assistant(output));
        if (!turn.finished())
            return RunResult.of(StopReason.UPSTREAM_ERROR, output, turn.usage(), "proxy_error",
                    "The remote stream ended before the turn finished", messages);
        return switch (turn.finishReason()) {
            case "error" -> RunResult.of(StopReason.UPSTREAM_ERROR, output, turn.usage(), "agent_error",
                    redact(turn.error() == null ? "The remote agent failed" : turn.error()), messages);
            case "length" -> RunResult.of(StopReason.OUTPUT_LENGTH, output, turn.usage(), "output_truncated",
                    redact(turn.error() == null ? "The remote answer was truncated" : turn.error()), messages);
            default -> RunResult.completed(output, turn.usage(), messages);
        };
    }

    private static RunResult cancelled(RemoteTurn turn) {
        var output = turn.output();
        return RunResult.of(StopReason.INTERRUPTED, output, turn.usage(), null, null,
                output.isEmpty() ? List.of() : List.of(Message.assistant(output)));
    }

    private RunResult failed(String code, String message, String partial, Usage usage) {
        var output = partial == null || partial.isEmpty() ? null : partial;
        return RunResult.of(StopReason.UPSTREAM_ERROR, output, usage, code, redact(message),
                output == null ? List.of() : List.of(Message.assistant(output)));
    }

    /** The remote's {@code error.message} (or its raw body), first 300 characters. */
    private String errorMessage(InputStream body) {
        String text;
        try (body) {
            text = new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no body)";
        }
        try {
            JsonNode node = json.readTree(text);
            var message = node.path("error").path("message");
            if (message.isTextual()) return clip(message.asText());
            if (node.path("error").isTextual()) return clip(node.path("error").asText());
            if (node.path("message").isTextual()) return clip(node.path("message").asText());
        } catch (IOException | RuntimeException e) {
            // not JSON: the raw text below
        }
        return text.isBlank() ? "(no body)" : clip(text.strip());
    }

    private static String clip(String s) {
        if (s == null) return "";
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS);
    }

    /** Removes the proxy key from a message, whatever the remote echoed. */
    String redact(String message) {
        if (message == null || settings.key() == null) return message;
        return message.replace(settings.key(), "***");
    }

    private synchronized HttpClient http() {
        if (http == null)
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(settings.connectTimeout()).build();
        return http;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        synchronized (this) {
            if (http != null) http.shutdownNow();
        }
    }
}
