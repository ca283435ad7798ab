package dev.caduceus.plugin.web;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig.Setting;
import dev.caduceus.spi.tool.Tool;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;

/**
 * Contributes {@code web_search} and {@code web_extract} (toolset {@code web}), configured
 * from {@code tools.web.*}. Owns the two HTTP clients (built on first use): one for the trusted search backends, one that
 * never follows redirects on its own so that {@code web_extract} can pass every hop through the
 * address guard. Called on the boot thread; the tools it returns are thread-safe.
 */
public final class WebPlugin implements PlatformPlugin {
    private final List<LazyClient> clients = new ArrayList<>();

    /** What {@link WebSettings} reads. */
    @Override
    public List<Setting> settings() {
        return WebKeys.ALL;
    }

    @Override
    public List<Tool> tools(PlatformContext ctx) {
        var settings = WebSettings.from(ctx.section("tools"), ctx.global().version());
        var searchClient = new LazyClient(HttpClient.newBuilder()
                .connectTimeout(BackendChoice.SEARCH_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NORMAL));
        var pageClient = new LazyClient(HttpClient.newBuilder()
                .connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER));
        clients.add(searchClient);
        clients.add(pageClient);
        var json = ctx.json();
        var fetcher = new PageFetcher(pageClient, new AddressGuard(settings), settings);
        return List.of(
                new WebSearchTool(BackendChoice.choose(settings, searchClient, json), settings.maxResults(), json),
                new WebExtractTool(fetcher, settings, json));
    }

    @Override
    public void stop() {
        clients.forEach(LazyClient::shutdownNow);
        clients.clear();
    }
}
