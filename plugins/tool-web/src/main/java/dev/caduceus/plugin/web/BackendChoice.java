package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.outbound.OutboundHttp;
import java.time.Duration;

/**
 * The search backend chosen by {@code tools.web.search.backend}, or why there is none.
 * {@code auto} picks SearXNG when its URL is set, else Tavily when its key is set.
 *
 * @param backend the backend, or null when {@code web_search} is unavailable
 * @param reason  why it is unavailable (which keys or variables to set), or null
 */
record BackendChoice(SearchBackend backend, String reason) {
    /** The limit of one search call: connecting, waiting and reading the answer. */
    static final Duration SEARCH_TIMEOUT = Duration.ofSeconds(20);

    private static final String SEARXNG = "tools.web.search.searxng.url (env SEARXNG_URL)";
    private static final String TAVILY = "tools.web.search.tavily.api_key (env TAVILY_API_KEY)";

    BackendChoice {
        if ((backend == null) == (reason == null))
            throw new IllegalArgumentException("exactly one of backend and reason");
    }

    static BackendChoice choose(WebSettings s, OutboundHttp http, ObjectMapper json) {
        var searxng = s.searxngUrl() == null ? null
                : new SearxngBackend(http, json, s.searxngUrl(), s.searxngKey(), SEARCH_TIMEOUT);
        var tavily = s.tavilyKey() == null ? null
                : new TavilyBackend(http, json, s.tavilyUrl(), s.tavilyKey(), SEARCH_TIMEOUT);
        return switch (s.backend()) {
            case "auto" -> searxng != null ? of(searxng) : tavily != null ? of(tavily)
                    : none("no web search backend is configured: set " + SEARXNG + " or " + TAVILY);
            case "searxng" -> searxng != null ? of(searxng)
                    : none("tools.web.search.backend is searxng but " + SEARXNG + " is not set");
            case "tavily" -> tavily != null ? of(tavily)
                    : none("tools.web.search.backend is tavily but " + TAVILY + " is not set");
            default -> none("unknown tools.web.search.backend '" + s.backend() + "' (known: auto, searxng, tavily)");
        };
    }

    private static BackendChoice of(SearchBackend backend) {
        return new BackendChoice(backend, null);
    }

    private static BackendChoice none(String reason) {
        return new BackendChoice(null, reason);
    }
}
