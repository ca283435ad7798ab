package dev.caduceus.platform.host.http;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.pathmap.PathMappings;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;

/**
 * The route table: built once at boot from every enabled family's {@link ServedRoute}s, then
 * immutable and safe to share between request threads.
 *
 * <p>Templates are grouped by shape (the template with parameter names erased) into one Jetty
 * {@link PathMappings} of {@link MethodTable}s, so {@code GET /v1/runs/{run_id}} and
 * {@code POST /v1/runs/{id}/stop} never shadow each other. A second route with the same method and
 * shape throws {@link IllegalArgumentException}. {@code OPTIONS} routes cannot be registered: the
 * origin gate answers every preflight.
 */
public final class Router {
    /** The routes that need no bearer key. */
    public static final Set<String> DEFAULT_PUBLIC_PATHS = Set.of("/health", "/v1/health");

    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
    private static final Pattern VARIABLE = Pattern.compile("\\{[^}/]*}");

    private final PathMappings<MethodTable> mappings;
    /** The templates without a variable, by path: most requests' routes, found without a regex per template. */
    private final Map<String, MethodTable> exact;
    private final List<ServedRoute> routes;

    private Router(PathMappings<MethodTable> mappings, Map<String, MethodTable> exact, List<ServedRoute> routes) {
        this.mappings = mappings;
        this.exact = exact;
        this.routes = routes;
    }

    /** A router whose public routes are {@link #DEFAULT_PUBLIC_PATHS}. */
    public static Router of(List<ServedRoute> routes) {
        return of(routes, DEFAULT_PUBLIC_PATHS);
    }

    /**
     * A router over {@code routes}; a route whose template is in {@code publicTemplates}, or that is
     * itself {@linkplain ServedRoute#publicRoute() public}, skips auth.
     *
     * @throws IllegalArgumentException on a duplicate method and template, an unsupported method or a
     *                                  malformed template
     */
    public static Router of(List<ServedRoute> routes, Set<String> publicTemplates) {
        requireNonNull(publicTemplates, "publicTemplates");
        var mappings = new PathMappings<MethodTable>();
        var exact = new java.util.HashMap<String, MethodTable>();
        for (var entry : routes) {
            if (!METHODS.contains(entry.method()))
                throw new IllegalArgumentException("Unsupported method " + entry.method() + " for " + entry.template());
            var spec = new UriTemplatePathSpec(entry.template());
            var shape = new UriTemplatePathSpec(erase(entry.template()));
            var table = mappings.get(shape);
            var bound = new MethodTable.Bound(entry, spec,
                    entry.publicRoute() || publicTemplates.contains(entry.template()));
            var with = (table == null ? new MethodTable() : table).with(bound);
            mappings.put(shape, with);
            if (!VARIABLE.matcher(entry.template()).find()) exact.put(entry.template(), with);
        }
        return new Router(mappings, Map.copyOf(exact), List.copyOf(routes));
    }

    /** Every route, in registration order. */
    public List<ServedRoute> routes() {
        return routes;
    }

    /** Finds the route for {@code method} (upper case) and {@code path} (decoded, no query). */
    public Lookup lookup(String method, String path) {
        var literal = exact.get(path); // the most specific match there is: PathMappings would try it first
        if (literal != null) {
            var bound = literal.get(method);
            if (bound != null) return new Match(bound.entry(), Map.of(), bound.publicRoute());
        }
        var allowed = new LinkedHashSet<String>();
        for (var matched : mappings.getMatchedList(path)) {
            var table = matched.getResource();
            var bound = table.get(method);
            if (bound != null)
                return new Match(bound.entry(), Map.copyOf(bound.spec().getPathParams(path)), bound.publicRoute());
            allowed.addAll(table.methods());
        }
        return allowed.isEmpty() ? new NotFound() : new MethodNotAllowed(List.copyOf(allowed));
    }

    private static String erase(String template) {
        var counter = new int[1];
        return VARIABLE.matcher(template).replaceAll(m -> "{p" + counter[0]++ + "}");
    }

    /** The outcome of {@link #lookup}. */
    public sealed interface Lookup permits Match, NotFound, MethodNotAllowed {}

    /** A route answers this request; {@code pathParams} holds the template's parameters. */
    public record Match(ServedRoute entry, Map<String, String> pathParams, boolean publicRoute) implements Lookup {
        public Match {
            requireNonNull(entry, "entry");
            pathParams = Map.copyOf(pathParams);
        }
    }

    /** No route has this path: 404. */
    public record NotFound() implements Lookup {}

    /** The path is known but not for this method: 405 with {@code Allow: allowed}. */
    public record MethodNotAllowed(List<String> allowed) implements Lookup {
        public MethodNotAllowed {
            allowed = List.copyOf(allowed);
        }
    }
}
