package dev.caduceus.plugin.file;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A tool-level error with its result object (normally {@code {"error": …}}), thrown inside this
 * plugin and turned into the tool's result at the tool boundary; it never leaves a tool.
 */
final class ToolFailure extends Exception {
    private final transient ObjectNode result;

    ToolFailure(String message) {
        this(HermesJson.error(message));
    }

    ToolFailure(ObjectNode result) {
        super(result.path("error").asText(), null, false, false);
        this.result = result;
    }

    /** The result object to return to the model. */
    ObjectNode result() {
        return result;
    }
}
