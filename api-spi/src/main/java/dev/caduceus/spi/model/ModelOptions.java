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
}
