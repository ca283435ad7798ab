package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.Models;
import java.util.function.Consumer;

/**
 * The host's {@link Models}: the selected provider called once per request, with the upstream's
 * streaming switch ({@code model.stream}) applied and error messages redacted. Immutable;
 * thread-safe.
 *
 * @param provider          the selected provider (class-loader bound), or null when none (proxy mode,
 *                          no provider plugin)
 * @param ready             whether {@code model.*} is configured and the provider says it is
 * @param streamAllowed     {@code model.stream}
 * @param defaultModel      {@code model.name}; null when none is configured
 */
public record HostModels(ModelProvider provider, boolean ready, boolean streamAllowed, String defaultModel,
                         Redactor redactor) implements Models {

    /** No plain calls on this host (proxy mode). */
    static HostModels none() {
        return new HostModels(null, false, false, null, Redactor.builder().build());
    }

    @Override
    public java.util.List<String> routes() {
        return routeTable().map(dev.caduceus.platform.runtime.routing.RouteTable::names).orElse(java.util.List.of());
    }

    /** The model routes, when any is configured (the provider is then a {@code RoutedProvider}). */
    java.util.Optional<dev.caduceus.platform.runtime.routing.RouteTable> routeTable() {
        return provider instanceof dev.caduceus.platform.runtime.routing.RoutedProvider routed
                ? java.util.Optional.of(routed.table()) : java.util.Optional.empty();
    }

    @Override
    public boolean available() {
        return provider != null && ready;
    }

    @Override
    public void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel) throws ModelException {
        if (!available()) throw new IllegalStateException("no upstream model is available on this host");
        var sent = request.stream() && !streamAllowed
                ? request.streaming(false)
                : request;
        try {
            provider.stream(sent, sink, cancel);
        } catch (ModelException e) {
            throw new ModelException(redactor.redact(String.valueOf(e.getMessage())), e.retryable(), e.status(),
                    e.retryAfter().orElse(null), null);
        }
    }
}
