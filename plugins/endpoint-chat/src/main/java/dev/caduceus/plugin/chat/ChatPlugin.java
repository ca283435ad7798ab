package dev.caduceus.plugin.chat;

import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.http.EndpointFamily;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.support.settings.SharedSettings;
import java.util.List;

/**
 * The OpenAI-compatible chat endpoint: contributes the {@code chat} family
 * ({@code POST /v1/chat/completions}), which turns each request into one agent run and translates
 * the run back into a {@code chat.completion} or a chunk stream.
 */
public final class ChatPlugin implements PlatformPlugin {

    /** What {@link ChatSettings} reads. */
    @Override
    public List<Setting> settings() {
        return List.of(SharedSettings.TOOL_PROGRESS, SharedSettings.TOOL_PROGRESS_EVENTS,
                Setting.choice("chat.housekeeping", "plain", List.of("plain", "agent"),
                        "front-ends' housekeeping requests (titles, tags, follow-ups): one plain model call, or an agent turn"),
                Setting.string("model.housekeeping_model", null,
                        "the upstream model of housekeeping calls (a cheaper one); unset: model.name"),
                SharedSettings.IDEMPOTENCY_TTL, SharedSettings.IDEMPOTENCY_MAX_ENTRIES);
    }

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        var settings = ChatSettings.from(ctx);
        var idempotency = new IdempotencyCache(ctx.clock(), settings.idempotencyTtl(), settings.idempotencyEntries());
        return List.of(new ChatFamily(new ChatHandler(ctx, settings, idempotency), settings));
    }
}
