package dev.caduceus.spi.model;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Per-call generation options; {@code null} means the upstream's default. {@code extra} is passed
 * through into the upstream request body. Immutable by convention: never mutate {@code extra}.
 */
public record ModelOptions(Double temperature, Integer maxTokens, String reasoningEffort, ObjectNode extra) {
    public static final ModelOptions DEFAULTS = new ModelOptions(null, null, null, null);

    public ModelOptions {
        extra = extra == null ? JsonNodeFactory.instance.objectNode() : extra.deepCopy();
    }

    /**
     * A request's {@code model_options}: {@code reasoning_effort} and
     * {@code service_tier} are kept, other keys ignored; absent or null gives {@link #DEFAULTS}.
     *
     * @throws dev.caduceus.spi.http.HttpStatusException 400 {@code invalid_model_options} when it is not an object
     */
    public static ModelOptions fromRequest(com.fasterxml.jackson.databind.JsonNode node) {
        if (node == null || node.isNull()) return DEFAULTS;
        if (!node.isObject())
            throw dev.caduceus.spi.http.ApiError.badRequest("invalid_model_options", "'model_options' must be an object",
                    "model_options").exception();
        var effort = node.path("reasoning_effort").isTextual() ? node.get("reasoning_effort").asText() : null;
        com.fasterxml.jackson.databind.node.ObjectNode extra = null;
        if (node.path("service_tier").isTextual())
            extra = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                    .put("service_tier", node.get("service_tier").asText());
        return new ModelOptions(null, null, effort, extra);
    }
}
