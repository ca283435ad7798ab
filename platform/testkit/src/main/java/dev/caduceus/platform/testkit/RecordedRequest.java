package dev.caduceus.platform.testkit;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Map;

/**
 * One request {@link ScriptedUpstream} received. Immutable.
 *
 * @param method  the HTTP method
 * @param path    the path ({@code /v1/chat/completions})
 * @param body    the parsed JSON body; a {@code MissingNode} when there was none, a {@code TextNode}
 *                with the raw text when it was not JSON
 * @param headers header values by lower-case name (the last value when repeated)
 */
public record RecordedRequest(String method, String path, JsonNode body, Map<String, String> headers) {
    public RecordedRequest {
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(body, "body");
        headers = Map.copyOf(headers);
    }

    /** The header's value, or {@code null}; {@code name} is case-insensitive. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
