package dev.caduceus.spi.model;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Objects;

/**
 * The upstream model settings ({@code model.*}: base URL, key, model name, timeout and call options). {@link #toString()} never shows
 * the API key. Immutable (never mutate {@code extraBody}).
 *
 * @param baseUrl       upstream base URL including {@code /v1}; {@code https://api.openai.com/v1} when
 *                      only an API key is set; null when nothing is configured
 * @param apiKey        bearer for the upstream; may be null (local servers)
 * @param name          upstream model id; null when not configured
 * @param timeout       per upstream call ({@code model.timeout_seconds})
 * @param maxTokens     {@code model.max_tokens}, or null
 * @param stream        {@code model.stream}: stream upstream calls (default true)
 * @param echoReasoning {@code model.echo_reasoning}: send stored reasoning back upstream
 * @param extraBody     {@code model.extra_body}: keys added to every upstream request
 */
public record ModelSettings(String baseUrl, String apiKey, String name, Duration timeout, Integer maxTokens,
                            boolean stream, boolean echoReasoning, ObjectNode extraBody) {
    public ModelSettings {
        Objects.requireNonNull(timeout, "timeout");
        extraBody = extraBody == null ? JsonNodeFactory.instance.objectNode() : extraBody.deepCopy();
    }

    /** True when a model name and a base URL (or an API key, implying OpenAI) are set. */
    public boolean configured() {
        return name != null && baseUrl != null;
    }

    @Override
    public String toString() {
        return "ModelSettings[baseUrl=" + baseUrl + ", name=" + name + ", apiKey=" + (apiKey == null ? "none" : "<redacted>")
                + ", timeout=" + timeout + ", maxTokens=" + maxTokens + ", stream=" + stream + "]";
    }
}
