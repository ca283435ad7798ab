/**
 * Health: the public liveness answer ({@code /health}, {@code /v1/health}) and the authenticated
 * readiness document ({@code /health/detailed}) built from the core checks and the checks plugins
 * register. Start at {@link dev.caduceus.platform.host.health.HealthRoutes}. Threading: checks run on
 * request threads, possibly concurrently; every class here is thread-safe.
 */
package dev.caduceus.platform.host.health;
