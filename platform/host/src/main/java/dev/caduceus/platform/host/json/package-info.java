/**
 * JSON configuration shared by the whole host. Start at {@link dev.caduceus.platform.host.json.Json}.
 * Threading: mappers are thread-safe once configured.
 */
package dev.caduceus.platform.host.json;
