package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@link Routes} one endpoint family registers into: checks the method and that each template
 * lies under the family's base path, wraps each handler with the plugin's loader, and marks the
 * routes registered with {@link Routes#publicGet} as public. Valid only
 * during {@code EndpointFamily.routes}, on the boot thread.
 */
final class RouteCollector implements Routes {
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

    private final String familyId;
    private final String basePath;
    private final String pluginId;
    private final ClassLoader loader;
    private final List<PluginRoute> routes = new ArrayList<>();
    private boolean closed;

    RouteCollector(String familyId, String basePath, String pluginId, ClassLoader loader) {
        this.familyId = familyId;
        this.basePath = basePath;
        this.pluginId = pluginId;
        this.loader = loader;
    }

    @Override
    public Routes route(String method, String template, String name, HttpHandler handler) {
        return add(method, template, name, handler, false, 0);
    }

    /** A POST with its own body limit, its body streamed ({@link PluginRoute#maxBodyBytes()}). */
    @Override
    public Routes upload(String template, String name, long maxBodyBytes, HttpHandler handler) {
        if (maxBodyBytes <= 0)
            throw new IllegalArgumentException("family '" + familyId + "': upload " + template
                    + " needs a positive body limit, not " + maxBodyBytes);
        return add("POST", template, name, handler, false, maxBodyBytes);
    }

    /** A keyless GET: the router lets it skip auth ({@link PluginRoute#publicRoute()}). */
    @Override
    public Routes publicGet(String template, String name, HttpHandler handler) {
        return add("GET", template, name, handler, true, 0);
    }

    private Routes add(String method, String template, String name, HttpHandler handler, boolean publicRoute,
                       long maxBodyBytes) {
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
        routes.add(new PluginRoute(method, template, name, familyId, pluginId, PluginCalls.wrap(loader, handler), loader,
                publicRoute, maxBodyBytes));
        return this;
    }

    private boolean underBase(String template) {
        if (basePath.endsWith("/")) return template.startsWith(basePath);
        return template.equals(basePath) || template.startsWith(basePath + "/");
    }

    List<PluginRoute> close() {
        closed = true;
        return List.copyOf(routes);
    }

    /** The key two routes collide on: method plus template with parameter names erased. */
    static String key(PluginRoute route) {
        return route.method() + " " + route.template().replaceAll("\\{[^/}]*}", "{}");
    }
}
