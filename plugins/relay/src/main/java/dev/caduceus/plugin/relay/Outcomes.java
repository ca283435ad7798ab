package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.util.List;

/**
 * How a relayed turn ends, in one place for both remote APIs: failed, cancelled and completed
 * {@link RunResult}s (partial text kept as the transcript's one assistant message), the remote's
 * error message read from its error body (first {@value #MAX_ERROR_CHARS} characters), what a failed
 * exchange means for the turn, and the proxy key replaced by {@code ***} in every message.
 * Immutable; thread-safe.
 */
final class Outcomes {
    static final int MAX_ERROR_CHARS = 300;
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final RelaySettings settings;
    private final String key;
    private final ObjectMapper json;

    Outcomes(RelaySettings settings, ObjectMapper json) {
        this.settings = settings;
        this.key = settings.key();
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

    /**
     * {@code The remote agent server answered <status>: <message>} for a non-2xx answer (its body is
     * consumed); a redirect names its {@code Location} instead, as the client's own redirect error does.
     */
    String answered(int status, OutboundHttp.Response response) {
        var location = status / 100 == 3 ? response.header("Location").orElse(null) : null;
        if (location != null) {
            response.close();
            return "The remote agent server answered " + status + " with Location: " + clip(location) + ", which the"
                    + " relay does not follow (point gateway.proxy_url at the new address)";
        }
        return "The remote agent server answered " + status + ": " + errorMessage(response);
    }

    /** The contract code of a non-2xx answer: 401/403 are {@code proxy_auth_failed}, the rest {@code proxy_error}. */
    static String codeFor(int status) {
        return status == 401 || status == 403 ? "proxy_auth_failed" : "proxy_error";
    }

    /**
     * A request that got no answer: a silence of {@code proxy_read_timeout_seconds} once it was sent is
     * {@code proxy_timeout}; a redirect (never followed for a POST) is {@code proxy_error} naming the
     * status and {@code Location}; the rest (no connection, TLS, proxy) is {@code proxy_unreachable}.
     */
    RunResult unanswered(Failure failure, String partial, Usage usage) {
        return switch (failure.kind()) {
            case TIMEOUT -> failure.requestSent() ? silent(partial, usage) : unreachable(failure, partial, usage);
            case REDIRECT -> failed("proxy_error", "The remote agent server redirected the request, which the relay"
                    + " does not follow (point gateway.proxy_url at the new address): " + clip(failure.getMessage()),
                    partial, usage);
            default -> unreachable(failure, partial, usage);
        };
    }

    /** {@code proxy_timeout}: nothing from the remote for {@code proxy_read_timeout_seconds}. */
    RunResult silent(String partial, Usage usage) {
        return failed("proxy_timeout", "The remote agent server sent nothing for " + settings.readTimeout().toSeconds()
                + " s", partial, usage);
    }

    /** {@code proxy_unreachable}, naming the exception of a refused or timed-out connect, else the failure. */
    RunResult unreachable(Failure failure, String partial, Usage usage) {
        if (connectFailure(failure)) {
            var cause = failure.getCause() == null ? failure.kind().name() : failure.getCause().getClass().getSimpleName();
            return failed("proxy_unreachable", "The remote agent server " + settings.origin() + " is unreachable ("
                    + cause + ")", partial, usage);
        }
        return failed("proxy_unreachable", "The remote agent server " + settings.origin() + " is unreachable: "
                + clip(failure.getMessage()), partial, usage);
    }

    /** No connection was made: the name did not resolve, the connect was refused or timed out. */
    static boolean connectFailure(Failure failure) {
        return failure.kind() == Failure.Kind.UNREACHABLE
                || failure.kind() == Failure.Kind.TIMEOUT && !failure.requestSent();
    }

    /** The remote's {@code error.message} (or its raw body), first 300 characters. */
    String errorMessage(OutboundHttp.Response response) {
        String text;
        try (response) {
            text = response.text(MAX_ERROR_BODY);
        } catch (Failure e) {
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
