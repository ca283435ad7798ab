package dev.caduceus.platform.plugin;

import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@link Routes} one endpoint family registers into: checks the method and that each template
 * lies under the family's base path, and wraps each handler with the plugin's loader. Valid only
 * during {@code EndpointFamily.routes}, on the boot thread.
 */
final class RouteCollector implements Routes {
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

    private final String familyId;
    private final String basePath;
    private final String pluginId;
    private final ClassLoader loader;
    private final List<RouteEntry> routes = new ArrayList<>();
    private boolean closed;

    RouteCollector(String familyId, String basePath, String pluginId, ClassLoader loader) {
        this.familyId = familyId;
        this.basePath = basePath;
        this.pluginId = pluginId;
        this.loader = loader;
    }

    @Override
    public Routes route(String method, String template, String name, HttpHandler handler) {
        if (closed) throw new IllegalStateException("routes can only be registered during EndpointFamily.routes()");
        if (method == null || !METHODS.contains(method))
            throw new IllegalArgumentException("family '" + familyId + "': method must be one of "
                    + METHODS + ", not " + method);
        if (template == null || !underBase(template))
            throw new IllegalArgumentException("family '" + familyId + "': route " + method + " " + template
                    + " does not start with its base path " + basePath);
        if (handler == null)
            throw new IllegalArgumentException("family '" + familyId + "': route " + method + " " + template
                    + " has no handler");
        routes.add(new RouteEntry(method, template, name, familyId, pluginId, PluginCalls.wrap(loader, handler), loader));
        return this;
    }

    private boolean underBase(String template) {
        if (basePath.endsWith("/")) return template.startsWith(basePath);
        return template.equals(basePath) || template.startsWith(basePath + "/");
    }

    List<RouteEntry> close() {
        closed = true;
        return List.copyOf(routes);
    }

    /** The key two routes collide on: method plus template with parameter names erased. */
    static String key(RouteEntry route) {
        return route.method() + " " + route.template().replaceAll("\\{[^/}]*}", "{}");
    }
}
