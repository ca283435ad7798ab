package dev.caduceus.plugin.chat;

import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;

/**
 * The plugin's settings, read once at start from the documented globals. Immutable.
 *
 * @param toolProgress        {@code chat.tool_progress_events}: {@code opt_in} (default), {@code always}, {@code off}
 * @param idempotencyTtl      {@code idempotency.ttl_seconds} (300)
 * @param idempotencyEntries  {@code idempotency.max_entries} (1000)
 * @param plainHousekeeping   {@code chat.housekeeping}: {@code plain} (default, true) answers front-ends'
 *                            housekeeping requests with one plain model call; {@code agent} runs them as turns
 */
record ChatSettings(ToolProgress.Mode toolProgress, Duration idempotencyTtl, int idempotencyEntries,
                    boolean plainHousekeeping) {

    static ChatSettings from(GlobalConfig global, PluginConfig chat) {
        return new ChatSettings(ToolProgress.Mode.parse(global.chatToolProgressEvents()),
                Duration.ofSeconds(global.idempotencyTtlSeconds()), global.idempotencyMaxEntries(),
                !chat.string("housekeeping", "plain").trim().equalsIgnoreCase("agent"));
    }
}
