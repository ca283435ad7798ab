package dev.caduceus.plugin.openai;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.model.ModelProvider;
import java.util.List;

/**
 * Contributes the {@code openai} {@link ModelProvider}, built from the host's {@code model.*}
 * settings, read from its configuration section ({@link ModelSettings#from}), calling out through the host's
 * client ({@code ctx.outbound()}). The provider is contributed even when the model
 * is not configured; it then reports {@code configured() == false} and the host answers 503.
 */
public final class OpenAiPlugin implements PlatformPlugin {
    private volatile OpenAiProvider provider;

    @Override
    public List<ModelProvider> modelProviders(PlatformContext ctx) {
        var created = new OpenAiProvider(ModelSettings.from(ctx.section("model")), ctx.outbound());
        provider = created;
        return List.of(created);
    }

    @Override
    public void stop() {
        var created = provider;
        if (created != null) created.close();
    }
}
