package dev.caduceus.support.settings;

import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * Settings more than one shipped plugin reads, declared once here so that every plugin declares
 * them the same way (the host refuses two different declarations of one key). Constants only.
 */
public final class SharedSettings {
    private SharedSettings() {}

    /** {@code idempotency.ttl_seconds}: how long a non-streaming chat or Responses answer is replayed. */
    public static final Setting IDEMPOTENCY_TTL = Setting.integer("idempotency.ttl_seconds", 300, 0,
            "how long the answer to a non-streaming chat or Responses request is replayed for a repeated Idempotency-Key");

    /** {@code idempotency.max_entries}: answers kept for replay at most. */
    public static final Setting IDEMPOTENCY_MAX_ENTRIES = Setting.integer("idempotency.max_entries", 1000, 0,
            "answers kept for Idempotency-Key replay at most (the oldest go first)");

    /** {@code chat.tool_progress}: how streamed chat and Responses turns show tool progress. */
    public static final Setting TOOL_PROGRESS = Setting.choice("chat.tool_progress", null,
            List.of("comments", "events", "reasoning", "none"),
            "how a streamed turn shows tool calls: SSE comments, hermes.tool.progress events, reasoning text, or not");

    /** {@code chat.tool_progress_events}: the older switch, used when {@code chat.tool_progress} is unset. */
    public static final Setting TOOL_PROGRESS_EVENTS = Setting.choice("chat.tool_progress_events", "opt_in",
            List.of("opt_in", "always", "off"),
            "the older switch, used when chat.tool_progress is unset: events on request (opt_in), always, or off");

    /** Both idempotency settings. */
    public static final List<Setting> IDEMPOTENCY = List.of(IDEMPOTENCY_TTL, IDEMPOTENCY_MAX_ENTRIES);
}
