package dev.caduceus.spi.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A family of HTTP endpoints under one base path (for example {@code /v1/runs}), contributed by one
 * plugin. An operator enables or disables the family by enabling or disabling its plugin.
 *
 * <p>Lifecycle: {@link #routes} and {@link #features} are called once, on the boot thread, before the
 * router is frozen. Threading: the registered handlers are then called concurrently.
 */
public interface EndpointFamily {

    /** A short id, unique per deployment ({@code responses}). */
    String id();

    /** The path prefix every route of this family starts with ({@code /v1/responses}). */
    String basePath();

    /** Registers the family's routes. Templates must start with {@link #basePath()}. */
    void routes(Routes routes);

    /**
     * Feature flags this family adds to {@code /v1/capabilities} ({@code {"run_list": true}}).
     * Values are JSON (booleans, strings or objects).
     */
    default ObjectNode features() {
        return JsonNodeFactory.instance.objectNode();
    }
}
