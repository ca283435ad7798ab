package dev.caduceus.plugin.chat;

import dev.caduceus.spi.PlatformContext;
import java.time.Duration;

/**
 * The plugin's settings, read once at start from the {@code chat} section and the documented
 * globals. Immutable.
 *
 * @param toolProgress        {@code chat.tool_progress} ({@code comments} default, {@code events},
 *                            {@code reasoning}, {@code none}), else the legacy global
 *                            {@code chat.tool_progress_events} ({@link ToolProgress.Setting#of})
 * @param idempotencyTtl      {@code idempotency.ttl_seconds} (300)
 * @param idempotencyEntries  {@code idempotency.max_entries} (1000)
 * @param plainHousekeeping   {@code chat.housekeeping}: {@code plain} (default, true) answers front-ends'
 *                            housekeeping requests with one plain model call; {@code agent} runs them as turns
 * @param housekeepingModel   {@code model.housekeeping_model}: the upstream model of those calls (a cheaper
 *                            one); empty means the deployment's own ({@code Models.defaultModel()})
 */
record ChatSettings(ToolProgress.Setting toolProgress, Duration idempotencyTtl, int idempotencyEntries,
                    boolean plainHousekeeping, java.util.Optional<String> housekeepingModel) {

    static ChatSettings from(PlatformContext ctx) {
        var chat = ctx.section("chat");
        var idempotency = ctx.section("idempotency");
        return new ChatSettings(ToolProgress.Setting.of(chat.string("tool_progress"),
                        chat.string("tool_progress_events", "opt_in")),
                Duration.ofSeconds(idempotency.integer("ttl_seconds", 300)), idempotency.integer("max_entries", 1000),
                !chat.string("housekeeping", "plain").trim().equalsIgnoreCase("agent"),
                ctx.section("model").string("housekeeping_model").map(String::strip).filter(m -> !m.isEmpty()));
    }
}
