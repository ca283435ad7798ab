package dev.caduceus.platform.host.metrics;

import dev.caduceus.spi.http.HttpExchange;

/**
 * {@code GET /metrics}: every metric of the process, in the Prometheus text format 0.0.4, or in
 * OpenMetrics 1.0 when the {@code Accept} header asks for {@code application/openmetrics-text} (as
 * Prometheus does). The host serves it as the core family {@code metrics} (off with
 * {@code metrics.enabled: false}); it needs the API key unless {@code metrics.public} is true.
 * Stateless; safe on any request thread.
 */
public final class MetricsRoute {
    /** The route's path. */
    public static final String PATH = "/metrics";

    private final MetricsRegistry registry;

    public MetricsRoute(MetricsRegistry registry) {
        this.registry = registry;
    }

    /** Answers one scrape. */
    public void scrape(HttpExchange exchange) {
        var exposition = registry.scrape(exchange.header("Accept").orElse(null));
        exchange.header("Cache-Control", "no-store");
        exchange.respond(200, exposition.contentType(), exposition.body());
    }
}
