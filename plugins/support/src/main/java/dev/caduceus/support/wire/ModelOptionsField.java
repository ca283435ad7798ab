package dev.caduceus.support.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.http.HttpStatusException;
import dev.caduceus.spi.model.ModelOptions;

/**
 * A request's {@code model_options} object: {@code reasoning_effort} and {@code service_tier} are
 * kept (the second passed through to the upstream body), other keys ignored. Stateless.
 */
public final class ModelOptionsField {
    private ModelOptionsField() {}

    /**
     * Absent or null gives {@link ModelOptions#DEFAULTS}.
     *
     * @throws HttpStatusException 400 {@code invalid_model_options} when it is not an object
     */
    public static ModelOptions parse(JsonNode node) {
        if (node == null || node.isNull()) return ModelOptions.DEFAULTS;
        if (!node.isObject())
            throw ApiError.badRequest("invalid_model_options", "'model_options' must be an object", "model_options")
                    .exception();
        var effort = node.path("reasoning_effort").isTextual() ? node.get("reasoning_effort").asText() : null;
        ObjectNode extra = null;
        if (node.path("service_tier").isTextual())
            extra = JsonNodeFactory.instance.objectNode().put("service_tier", node.get("service_tier").asText());
        return new ModelOptions(null, null, effort, extra);
    }

    /** {@code options} with {@code key} set to {@code value} in the upstream body's extra keys ({@code options} unchanged). */
    public static ModelOptions withExtra(ModelOptions options, String key, JsonNode value) {
        var extra = options.extra().deepCopy();
        extra.set(key, value);
        return new ModelOptions(options.temperature(), options.maxTokens(), options.reasoningEffort(), extra);
    }
}
