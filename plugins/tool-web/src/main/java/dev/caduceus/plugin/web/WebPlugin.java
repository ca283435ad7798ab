package dev.caduceus.plugin.web;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.tool.Tool;
import java.util.List;

/**
 * Contributes {@code web_search} and {@code web_extract} (toolset {@code web}), configured from
 * {@code tools.web.*}. Both use the host's outbound client ({@code ctx.outbound()}, which the host owns
 * and closes): the search backends, configured by the operator, with any egress; the pages the agent
 * names with the public-only policy the client checks on every connection, redirects included.
 * Called on the boot thread; the tools it returns are thread-safe. Holds nothing to release.
 */
public final class WebPlugin implements PlatformPlugin {

    /** What {@link WebSettings} reads. */
    @Override
    public List<Setting> settings() {
        return WebKeys.ALL;
    }

    @Override
    public List<Tool> tools(PlatformContext ctx) {
        var settings = WebSettings.from(ctx.section("tools"), ctx.global().version());
        var http = ctx.outbound();
        var json = ctx.json();
        return List.of(
                new WebSearchTool(BackendChoice.choose(settings, http, json), settings.maxResults(), json),
                new WebExtractTool(new PageFetcher(http, settings, ctx.metrics().counter("fetches",
                        "Pages web_extract fetched, by outcome (ok; refused by the egress policy; failed)", "outcome")),
                        settings, json));
    }
}
