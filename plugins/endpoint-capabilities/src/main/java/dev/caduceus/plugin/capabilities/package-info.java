/**
 * The discovery endpoints: {@code GET /v1/models}, {@code GET /v1/toolsets} and
 * {@code GET /v1/capabilities}, composed from what the loaded plugins contribute. Start at
 * {@link dev.caduceus.plugin.capabilities.CapabilitiesPlugin}. Threading: handlers are stateless and
 * read only frozen host views.
 */
package dev.caduceus.plugin.capabilities;
