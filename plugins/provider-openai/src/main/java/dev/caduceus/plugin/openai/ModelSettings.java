package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.outbound.OutboundHttp.Protocol;
import dev.caduceus.spi.outbound.OutboundHttp.Tls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The upstream connection settings this provider reads from the {@code model} section (base URL,
 * key, model name, timeouts, HTTP version, TLS files and call options). {@link #toString()} never
 * shows the API key. Immutable (never mutate {@code extraBody}).
 *
 * @param baseUrl       upstream base URL including {@code /v1}; {@code https://api.openai.com/v1} when
 *                      only an API key is set; null when nothing is configured
 * @param apiKey        bearer for the upstream; may be null (local servers)
 * @param name          upstream model id; null when not configured
 * @param timeout       one upstream call, body included ({@code model.timeout_seconds})
 * @param idleTimeout   longest silence of a call ({@code model.idle_timeout_seconds}); never more
 *                      than {@code timeout}
 * @param protocol      the HTTP version ({@code model.protocol})
 * @param tls           CA and client certificate files ({@code model.tls.*})
 * @param maxTokens     {@code model.max_tokens}, or null
 * @param stream        {@code model.stream}: stream upstream calls (default true)
 * @param echoReasoning {@code model.echo_reasoning}: send stored reasoning back upstream
 * @param extraBody     {@code model.extra_body}: keys added to every upstream request
 */
record ModelSettings(String baseUrl, String apiKey, String name, Duration timeout, Duration idleTimeout,
                     Protocol protocol, Tls tls, Integer maxTokens, boolean stream, boolean echoReasoning,
                     ObjectNode extraBody) {
    /** OpenAI's API, the base URL when only an API key is configured. */
    static final String OPENAI_BASE_URL = "https://api.openai.com/v1";
    /** {@code model.idle_timeout_seconds} when unset. */
    static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(300);

    public ModelSettings {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(tls, "tls");
        if (idleTimeout.compareTo(timeout) > 0) idleTimeout = timeout;
        extraBody = extraBody == null ? JsonNodeFactory.instance.objectNode() : extraBody.deepCopy();
    }

    /** With the transport defaults: {@link #DEFAULT_IDLE_TIMEOUT} (capped), auto protocol, the JDK's TLS. */
    ModelSettings(String baseUrl, String apiKey, String name, Duration timeout, Integer maxTokens, boolean stream,
                  boolean echoReasoning, ObjectNode extraBody) {
        this(baseUrl, apiKey, name, timeout, DEFAULT_IDLE_TIMEOUT, Protocol.AUTO, Tls.DEFAULT, maxTokens, stream,
                echoReasoning, extraBody);
    }

    /**
     * Reads {@code model.*} (keys relative to the section): {@code base_url}, {@code api_key},
     * {@code name}, {@code timeout_seconds} (600), {@code idle_timeout_seconds} (300),
     * {@code protocol} ({@code auto}, {@code http1.1}, {@code h2c}), {@code tls.ca_file},
     * {@code tls.client_cert}, {@code tls.client_key}, {@code max_tokens}, {@code stream} (true),
     * {@code echo_reasoning} (false), {@code extra_body}. The host has validated their types at load;
     * a client certificate without its key (or the reverse) is a {@link ConfigException}.
     */
    static ModelSettings from(PluginConfig model) {
        var apiKey = model.string("api_key").filter(k -> !k.isBlank()).orElse(null);
        var baseUrl = model.string("base_url").filter(u -> !u.isBlank()).orElse(apiKey != null ? OPENAI_BASE_URL : null);
        var name = model.string("name").filter(n -> !n.isBlank()).orElse(null);
        Integer maxTokens = model.node("max_tokens").filter(n -> !n.isNull()).isPresent() ? model.integer("max_tokens", 0) : null;
        var extra = model.node("extra_body").filter(JsonNode::isObject).map(n -> (ObjectNode) n).orElse(null);
        return new ModelSettings(baseUrl, apiKey, name, Duration.ofSeconds(model.integer("timeout_seconds", 600)),
                Duration.ofSeconds(model.integer("idle_timeout_seconds", (int) DEFAULT_IDLE_TIMEOUT.toSeconds())),
                protocol(model.string("protocol", "auto")), tls(model), maxTokens, model.bool("stream", true),
                model.bool("echo_reasoning", false), extra);
    }

    /** These settings for another upstream: its base URL, key, model and (when given) timeout, the rest kept. */
    ModelSettings at(String baseUrl, String apiKey, String model, Duration timeout) {
        var callTimeout = timeout == null ? this.timeout : timeout;
        return new ModelSettings(baseUrl, apiKey, model, callTimeout, idleTimeout.compareTo(callTimeout) > 0 ? callTimeout
                : idleTimeout, protocol, tls, maxTokens, stream, echoReasoning, extraBody);
    }

    /** True when a model name and a base URL (or an API key, implying OpenAI) are set. */
    public boolean configured() {
        return name != null && baseUrl != null;
    }

    private static Protocol protocol(String value) {
        return switch (value) {
            case "http1.1" -> Protocol.HTTP_1_1;
            case "h2c" -> Protocol.H2C;
            case "auto" -> Protocol.AUTO;
            default -> throw new ConfigException("model.protocol",
                    "model.protocol must be auto, http1.1 or h2c, not " + value);
        };
    }

    private static Tls tls(PluginConfig model) {
        var ca = path(model, "tls.ca_file");
        var cert = path(model, "tls.client_cert");
        var key = path(model, "tls.client_key");
        if (cert.isPresent() != key.isPresent()) {
            var missing = cert.isPresent() ? "model.tls.client_key" : "model.tls.client_cert";
            throw new ConfigException(missing, "model.tls.client_cert and model.tls.client_key go together: "
                    + missing + " is not set");
        }
        return new Tls(ca, cert, key);
    }

    private static Optional<Path> path(PluginConfig model, String key) {
        return model.string(key).filter(p -> !p.isBlank()).map(Path::of);
    }

    @Override
    public String toString() {
        return "ModelSettings[baseUrl=" + baseUrl + ", name=" + name + ", apiKey=" + (apiKey == null ? "none" : "<redacted>")
                + ", timeout=" + timeout + ", idleTimeout=" + idleTimeout + ", protocol=" + protocol
                + ", maxTokens=" + maxTokens + ", stream=" + stream + "]";
    }
}
