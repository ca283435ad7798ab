package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The upstream connection settings this provider reads from the {@code model} section (base URL,
 * key, model name, timeout and call options). {@link #toString()} never shows
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
record ModelSettings(String baseUrl, String apiKey, String name, Duration timeout, Integer maxTokens,
                            boolean stream, boolean echoReasoning, ObjectNode extraBody) {
    public ModelSettings {
        Objects.requireNonNull(timeout, "timeout");
        extraBody = extraBody == null ? JsonNodeFactory.instance.objectNode() : extraBody.deepCopy();
    }

    /** OpenAI's API, the base URL when only an API key is configured. */
    static final String OPENAI_BASE_URL = "https://api.openai.com/v1";

    /**
     * Reads {@code model.*} (keys relative to the section): {@code base_url}, {@code api_key},
     * {@code name}, {@code timeout_seconds} (600), {@code max_tokens}, {@code stream} (true),
     * {@code echo_reasoning} (false), {@code extra_body}. The host has validated their types at load.
     */
    static ModelSettings from(PluginConfig model) {
        var apiKey = model.string("api_key").filter(k -> !k.isBlank()).orElse(null);
        var baseUrl = model.string("base_url").filter(u -> !u.isBlank()).orElse(apiKey != null ? OPENAI_BASE_URL : null);
        var name = model.string("name").filter(n -> !n.isBlank()).orElse(null);
        Integer maxTokens = model.node("max_tokens").filter(n -> !n.isNull()).isPresent() ? model.integer("max_tokens", 0) : null;
        var extra = model.node("extra_body").filter(JsonNode::isObject).map(n -> (ObjectNode) n).orElse(null);
        return new ModelSettings(baseUrl, apiKey, name, Duration.ofSeconds(model.integer("timeout_seconds", 600)),
                maxTokens, model.bool("stream", true), model.bool("echo_reasoning", false), extra);
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
