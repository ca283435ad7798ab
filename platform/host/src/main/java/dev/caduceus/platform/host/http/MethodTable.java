package dev.caduceus.platform.host.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;

/**
 * The routes of one path shape, by method. Immutable: {@link #with} returns a new table.
 */
final class MethodTable {
    /** The order in which an {@code Allow} header lists methods. */
    private static final List<String> METHOD_ORDER = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");

    /** One route with the template it was registered under (its own parameter names). */
    record Bound(ServedRoute entry, UriTemplatePathSpec spec, boolean publicRoute) {}

    private final Map<String, Bound> byMethod;

    MethodTable() {
        this(Map.of());
    }

    private MethodTable(Map<String, Bound> byMethod) {
        this.byMethod = Map.copyOf(byMethod);
    }

    /** This table plus {@code bound}; a second route for the same method is a boot error. */
    MethodTable with(Bound bound) {
        var method = bound.entry().method();
        var existing = byMethod.get(method);
        if (existing != null) {
            throw new IllegalArgumentException("Duplicate route " + method + " " + bound.entry().template()
                    + " (plugin " + bound.entry().pluginId() + "); already registered as "
                    + existing.entry().template() + " by plugin " + existing.entry().pluginId());
        }
        var copy = new HashMap<>(byMethod);
        copy.put(method, bound);
        return new MethodTable(copy);
    }

    /** The route for {@code method}, or {@code null}. */
    Bound get(String method) {
        return byMethod.get(method);
    }

    /** The registered methods in {@code Allow}-header order. */
    List<String> methods() {
        var list = new ArrayList<>(byMethod.keySet());
        Collections.sort(list, (a, b) -> Integer.compare(rank(a), rank(b)) != 0
                ? Integer.compare(rank(a), rank(b)) : a.compareTo(b));
        return List.copyOf(list);
    }

    private static int rank(String method) {
        int i = METHOD_ORDER.indexOf(method);
        return i < 0 ? METHOD_ORDER.size() : i;
    }
}
