/** The process's metrics registry and {@code GET /metrics}' exposition (Prometheus Java client). */
package dev.caduceus.platform.host.metrics;
