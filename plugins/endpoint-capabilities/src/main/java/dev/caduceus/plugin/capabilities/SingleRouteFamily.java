package dev.caduceus.plugin.capabilities;

import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;

/** An endpoint family made of one {@code GET} route on its base path. */
record SingleRouteFamily(String id, String basePath, String routeName, HttpHandler handler)
        implements EndpointFamily {

    @Override
    public void routes(Routes routes) {
        routes.get(basePath, routeName, handler);
    }
}
