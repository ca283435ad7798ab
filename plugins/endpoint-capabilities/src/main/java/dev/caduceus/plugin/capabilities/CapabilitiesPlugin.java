package dev.caduceus.plugin.capabilities;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.http.EndpointFamily;
import java.util.List;

/**
 * Contributes three endpoint families, one per base path: models, toolsets and capabilities.
 */
public final class CapabilitiesPlugin implements PlatformPlugin {

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        var documents = new Documents(ctx);
        return List.of(
                new SingleRouteFamily("models", "/v1/models", "models", ex -> ex.respond(200, documents.models(ex.caller()))),
                new SingleRouteFamily("toolsets", "/v1/toolsets", "toolsets", ex -> ex.respond(200, documents.toolsets())),
                new SingleRouteFamily("capabilities", "/v1/capabilities", "capabilities",
                        ex -> ex.respond(200, documents.capabilities(ex.caller()))));
    }
}
