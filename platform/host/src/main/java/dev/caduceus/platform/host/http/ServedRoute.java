package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.http.HttpHandler;
import java.util.Locale;

/**
 * One registered route, as the plugin loader hands it to the {@link Router}.
 *
 * @param method   GET, POST, PUT, PATCH or DELETE (stored upper case)
 * @param template a URI template such as {@code /v1/runs/{run_id}/events}
 * @param name     the capability name shown in {@code /v1/capabilities}, or {@code null}
 * @param family   the endpoint family id
 * @param pluginId the contributing plugin
 * @param handler  the handler, already wrapped to run with the plugin's class loader
 * @param mapper   the plugin's mapper, used by {@link dev.caduceus.spi.http.HttpExchange#bodyAs}
 * @param publicRoute whether it answers without a key (a plugin's {@link dev.caduceus.spi.http.Routes#publicGet});
 *                 the {@link Router}'s public templates are public too
 * @param maxBodyBytes an upload's own body limit ({@link dev.caduceus.spi.http.Routes#upload}), its body streamed;
 *                 0: the server's limit
 */
public record ServedRoute(String method, String template, String name, String family, String pluginId,
                         HttpHandler handler, ObjectMapper mapper, boolean publicRoute, long maxBodyBytes) {
    public ServedRoute {
        method = requireNonNull(method, "method").toUpperCase(Locale.ROOT);
        requireNonNull(template, "template");
        if (!template.startsWith("/")) throw new IllegalArgumentException("template must start with '/': " + template);
        requireNonNull(family, "family");
        requireNonNull(pluginId, "pluginId");
        requireNonNull(handler, "handler");
        requireNonNull(mapper, "mapper");
    }

    /** A route that needs the key unless its template is one of the router's public ones. */
    public ServedRoute(String method, String template, String name, String family, String pluginId,
                      HttpHandler handler, ObjectMapper mapper) {
        this(method, template, name, family, pluginId, handler, mapper, false, 0);
    }

    /** A route with the server's body limit. */
    public ServedRoute(String method, String template, String name, String family, String pluginId,
                      HttpHandler handler, ObjectMapper mapper, boolean publicRoute) {
        this(method, template, name, family, pluginId, handler, mapper, publicRoute, 0);
    }

    /** The body limit of this route: its own, else {@code serverLimit}. */
    public long bodyLimit(long serverLimit) {
        return maxBodyBytes > 0 ? maxBodyBytes : serverLimit;
    }
}
