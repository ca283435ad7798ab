package dev.caduceus.platform.runtime.routing;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A name a request's {@code model} may pick: the deployments that serve it and the routes to try, in order, when
 * all of them fail (or the prompt is past their context). Immutable (its deployments learn; see {@link Deployment}).
 */
public record Route(String name, List<Deployment> deployments, List<String> fallbacks) {
    public Route {
        requireNonNull(name, "name");
        deployments = List.copyOf(deployments);
        fallbacks = List.copyOf(fallbacks);
        if (deployments.isEmpty()) throw new IllegalArgumentException("route " + name + " has no deployment");
    }
}
