package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How a relayed turn ends, in one place for both remote APIs: failed, cancelled and completed
 * {@link RunResult}s (partial text kept as the transcript's one assistant message), the remote's
 * error message read from its error body (first {@value #MAX_ERROR_CHARS} characters), and the
 * proxy key replaced by {@code ***} in every message. Immutable; thread-safe.
 */
final class Outcomes {
    static final int MAX_ERROR_CHARS = 300;
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final String key;
    private final ObjectMapper json;

    Outcomes(String key, ObjectMapper json) {
        this.key = key;
        this.json = json;
    }

    RunResult failed(String code, String message, String partial, Usage usage) {
        var output = partial == null || partial.isEmpty() ? null : partial;
        return RunResult.of(StopReason.UPSTREAM_ERROR, output, usage, code, redact(message), transcript(output));
    }

    static RunResult cancelled(String output, Usage usage) {
        return RunResult.of(StopReason.INTERRUPTED, output, usage, null, null, transcript(output));
    }

    static RunResult completed(String output, Usage usage) {
        return RunResult.completed(output, usage, transcript(output));
    }

    /** The transcript of a relayed turn: one assistant message with the text, or none. */
    static List<Message> transcript(String output) {
        return output == null || output.isEmpty() ? List.of() : List.of(Message.assistant(output));
    }

    /** {@code The remote agent server answered <status>: <message>} for a non-2xx answer. */
    String answered(int status, InputStream body) {
        return "The remote agent server answered " + status + ": " + errorMessage(body);
    }

    /** The contract code of a non-2xx answer: 401/403 are {@code proxy_auth_failed}, the rest {@code proxy_error}. */
    static String codeFor(int status) {
        return status == 401 || status == 403 ? "proxy_auth_failed" : "proxy_error";
    }

    /** The remote's {@code error.message} (or its raw body), first 300 characters. */
    String errorMessage(InputStream body) {
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

    static String clip(String s) {
        if (s == null) return "";
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS);
    }

    /** Removes the proxy key from a message, whatever the remote echoed. */
    String redact(String message) {
        if (message == null || key == null) return message;
        return message.replace(key, "***");
    }
}
