package dev.caduceus.plugin.chat;

import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;

/**
 * The plugin's settings, read once at start from {@code plugins.endpoint-chat.*}. Immutable.
 *
 * @param toolProgress        {@code tool_progress_events}: {@code opt_in} (default), {@code always}, {@code off}
 *                            (the contract's global {@code chat.tool_progress_events} is not visible to plugins yet)
 * @param idempotencyTtl      {@code idempotency.ttl_seconds} (300)
 * @param idempotencyEntries  {@code idempotency.max_entries} (1000)
 */
record ChatSettings(ToolProgress.Mode toolProgress, Duration idempotencyTtl, int idempotencyEntries) {

    static ChatSettings from(PluginConfig config) {
        return new ChatSettings(ToolProgress.Mode.parse(config.string("tool_progress_events", "opt_in")),
                Duration.ofSeconds(Math.max(0, config.longValue("idempotency.ttl_seconds", 300))),
                config.integer("idempotency.max_entries", 1000));
    }
}
