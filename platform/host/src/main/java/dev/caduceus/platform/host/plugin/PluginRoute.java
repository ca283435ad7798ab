package dev.caduceus.platform.host.plugin;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.http.HttpHandler;

/**
 * One frozen route, ready for the router. Immutable.
 *
 * @param method      GET, POST, PUT, PATCH or DELETE
 * @param template    the URI template, {@code /v1/runs/{run_id}}
 * @param name        the capability name, or null
 * @param familyId    the endpoint family's id
 * @param pluginId    the contributing plugin
 * @param handler     the plugin's handler, already wrapped by {@link PluginCalls#wrap} with the plugin's loader
 * @param classLoader the plugin's class loader
 * @param publicRoute whether it answers without a key ({@link dev.caduceus.spi.http.Routes#publicGet})
 * @param maxBodyBytes an upload's own body limit ({@link dev.caduceus.spi.http.Routes#upload}); 0: the server's
 */
public record PluginRoute(String method, String template, String name, String familyId, String pluginId,
                         HttpHandler handler, ClassLoader classLoader, boolean publicRoute, long maxBodyBytes) {
    public PluginRoute {
        requireNonNull(method, "method");
        requireNonNull(template, "template");
        requireNonNull(familyId, "familyId");
        requireNonNull(pluginId, "pluginId");
        requireNonNull(handler, "handler");
        requireNonNull(classLoader, "classLoader");
    }

    /** A route that needs the key. */
    public PluginRoute(String method, String template, String name, String familyId, String pluginId,
                      HttpHandler handler, ClassLoader classLoader) {
        this(method, template, name, familyId, pluginId, handler, classLoader, false, 0);
    }

    /** The view {@code /v1/capabilities} shows. */
    public Deployment.RouteInfo toInfo() {
        return new Deployment.RouteInfo(method, template, name, familyId, pluginId);
    }
}
