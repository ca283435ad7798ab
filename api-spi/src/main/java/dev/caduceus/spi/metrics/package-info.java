/**
 * Metrics a plugin publishes on {@code GET /metrics}: {@link dev.caduceus.spi.metrics.Metrics}, from
 * {@link dev.caduceus.spi.PlatformContext#metrics()}.
 */
package dev.caduceus.spi.metrics;
