package dev.caduceus.plugin.chat;

import dev.caduceus.support.idempotency.IdempotencyCache;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.http.EndpointFamily;
import java.util.List;

/**
 * The OpenAI-compatible chat endpoint: contributes the {@code chat} family
 * ({@code POST /v1/chat/completions}), which turns each request into one agent run and translates
 * the run back into a {@code chat.completion} or a chunk stream.
 */
public final class ChatPlugin implements PlatformPlugin {

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        var settings = ChatSettings.from(ctx);
        var idempotency = new IdempotencyCache(ctx.clock(), settings.idempotencyTtl(), settings.idempotencyEntries());
        return List.of(new ChatFamily(new ChatHandler(ctx, settings, idempotency), settings));
    }
}
