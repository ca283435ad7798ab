package dev.caduceus.plugin.web;

import dev.caduceus.spi.config.PluginConfig.Setting;
import java.time.Duration;
import java.util.List;

/**
 * The {@code tools.web.*} keys the web tools read: their defaults and their declarations
 * ({@link WebPlugin#settings}), in one place so that {@link WebSettings} reads exactly what is
 * declared. The backends' API keys are secrets: declared without a default, so the reference
 * shows none. Constants only.
 */
final class WebKeys {
    private WebKeys() {}

    static final String DEFAULT_BACKEND = "auto";
    static final String DEFAULT_TAVILY_URL = "https://api.tavily.com";
    static final int DEFAULT_MAX_RESULTS = 5;
    static final int DEFAULT_MAX_CHARS = 15_000;
    static final long DEFAULT_MAX_BYTES = 5L * 1024 * 1024;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    static final Setting BACKEND = Setting.choice("tools.web.search.backend", DEFAULT_BACKEND,
            List.of("auto", "searxng", "tavily"),
            "the web_search backend: SearXNG when its URL is set, else Tavily when its key is set (auto), or only the one named");
    static final Setting SEARXNG_URL = Setting.string("tools.web.search.searxng.url", null,
            "the base URL of a SearXNG-compatible search server").withEnv("SEARXNG_URL");
    static final Setting SEARXNG_API_KEY = Setting.secret("tools.web.search.searxng.api_key",
            "a bearer key sent to the SearXNG server, if it wants one").withEnv("SEARXNG_API_KEY");
    static final Setting TAVILY_URL = Setting.string("tools.web.search.tavily.url", DEFAULT_TAVILY_URL,
            "the base URL of a Tavily-compatible search API").withEnv("TAVILY_API_URL");
    static final Setting TAVILY_API_KEY = Setting.secret("tools.web.search.tavily.api_key",
            "the Tavily API key; Tavily is used only when it is set").withEnv("TAVILY_API_KEY");
    static final Setting MAX_RESULTS = Setting.integer("tools.web.search.max_results", DEFAULT_MAX_RESULTS, 1,
            "search hits web_search returns at most");
    static final Setting MAX_CHARS = Setting.integer("tools.web.extract.max_chars", DEFAULT_MAX_CHARS, 1,
            "page text up to this length is returned whole; longer text keeps a head and a tail");
    static final Setting MAX_BYTES = Setting.integer("tools.web.extract.max_bytes", DEFAULT_MAX_BYTES, 1,
            "bytes of one page's response read at most");
    static final Setting TIMEOUT = Setting.duration("tools.web.extract.timeout_seconds",
            Long.toString(DEFAULT_TIMEOUT.toSeconds()), "the time limit of fetching one page, redirects included");
    static final Setting ALLOW_PRIVATE = Setting.bool("tools.web.allow_private_addresses", false,
            "let web_extract fetch private and loopback addresses (cloud metadata addresses stay refused)");
    static final Setting BLOCKED_HOSTS = Setting.list("tools.web.blocked_hosts", "[]",
            "host names or globs (*.example.com) web_extract always refuses");

    /** Everything above, in the order of the reference. */
    static final List<Setting> ALL = List.of(BACKEND, SEARXNG_URL, SEARXNG_API_KEY, TAVILY_URL, TAVILY_API_KEY,
            MAX_RESULTS, MAX_CHARS, MAX_BYTES, TIMEOUT, ALLOW_PRIVATE, BLOCKED_HOSTS);

    /** {@code setting}'s key inside the {@code tools} section, as {@code ctx.section("tools")} reads it. */
    static String inTools(Setting setting) {
        return setting.key().substring("tools.".length());
    }
}
