package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.model.ModelException;
import java.io.IOException;
import java.util.Set;

/**
 * Turns upstream failures into {@link ModelException}s with a retry verdict:
 * statuses 408, 409, 429, 500, 502, 503, 504, transport failures, timeouts and answers without
 * {@code choices} are retryable (redirects, refused targets and over-long stream lines are not), but nothing is once output of the call has reached the sink (the
 * client already saw it). Messages are redacted of the API key and cut to {@value #MAX_MESSAGE} chars.
 * Thread-safe.
 */
final class UpstreamErrors {
    static final int MAX_MESSAGE = 300;
    private static final Set<Integer> RETRYABLE = Set.of(408, 409, 429, 500, 502, 503, 504);

    private final ObjectMapper json;
    private final String apiKey;

    UpstreamErrors(ObjectMapper json, String apiKey) {
        this.json = json;
        this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
    }

    /** {@code Upstream model returned <status>: <message>}, with the upstream's Retry-After (seconds) if any. */
    ModelException status(int status, String body, java.util.Optional<String> retryAfter) {
        return new ModelException(clean("Upstream model returned " + status + ": " + errorMessage(body)),
                RETRYABLE.contains(status), status, retryAfter.flatMap(UpstreamErrors::seconds).orElse(null), null);
    }

    private static java.util.Optional<java.time.Duration> seconds(String header) {
        try {
            var value = Long.parseLong(header.strip());
            return value >= 0 ? java.util.Optional.of(java.time.Duration.ofSeconds(value)) : java.util.Optional.empty();
        } catch (NumberFormatException e) {
            return java.util.Optional.empty(); // an HTTP date: fall back to the loop's own backoff
        }
    }

    /** An error object sent inside a 200 stream ({@code data: {"error": …}}). */
    ModelException inStream(JsonNode chunk, boolean emitted) {
        return new ModelException(clean("Upstream model returned an error: " + errorMessage(chunk.toString())),
                !emitted, 200, null);
    }

    /** A 200 answer we cannot use: no {@code choices}, not JSON, a broken chunk. */
    ModelException badAnswer(String what, String body, boolean emitted) {
        return new ModelException(clean(what + ": " + body.strip()), !emitted, 200, null);
    }

    /** Connection refused, reset, cut, or a stream that ended early. */
    ModelException transport(String what, Throwable cause, boolean emitted) {
        var detail = cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage();
        return new ModelException(clean(what + detail), !emitted, 0, cause);
    }

    /**
     * A failure that retrying cannot fix (a redirect, a refused target, an over-long stream line): not
     * retryable, whatever was emitted.
     */
    ModelException fatal(String what, Throwable cause) {
        var detail = cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage();
        return new ModelException(clean(what + detail), false, 0, cause);
    }

    /** The text an upstream put in its error body: {@code error.message}, {@code error}, or the raw body. */
    String errorMessage(String body) {
        try {
            var tree = json.readTree(body);
            var error = tree.path("error");
            if (error.path("message").isTextual()) return error.path("message").asText();
            if (error.isTextual()) return error.asText();
            if (tree.path("message").isTextual()) return tree.path("message").asText();
        } catch (IOException | RuntimeException e) {
            // not JSON: the raw text is the message
        }
        return body.isBlank() ? "(no message)" : body.strip();
    }

    private String clean(String message) {
        var text = apiKey == null ? message : message.replace(apiKey, "***");
        return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "…";
    }
}
