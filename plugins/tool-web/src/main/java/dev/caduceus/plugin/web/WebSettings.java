package dev.caduceus.plugin.web;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The {@code tools.web.*} settings, read once at boot. Immutable.
 *
 * @param backend         {@code auto}, {@code searxng} or {@code tavily}
 * @param searxngUrl      SearXNG-compatible base URL, or null
 * @param searxngKey      optional bearer key for it, or null
 * @param tavilyUrl       Tavily-compatible base URL (default {@code https://api.tavily.com})
 * @param tavilyKey       Tavily key, or null
 * @param maxResults      search hits returned
 * @param maxChars        extracted text kept whole up to this length
 * @param maxBytes        response bytes read at most per URL
 * @param timeout         per search call and per extracted URL (all redirects included)
 * @param allowPrivate    lifts the private/loopback refusal of the address guard
 * @param blockedHosts    host globs that are always refused
 * @param userAgent       sent by {@code web_extract}
 */
public record WebSettings(String backend, String searxngUrl, String searxngKey, String tavilyUrl, String tavilyKey,
                          int maxResults, int maxChars, long maxBytes, Duration timeout, boolean allowPrivate,
                          List<String> blockedHosts, String userAgent) {

    public static final String DEFAULT_TAVILY_URL = "https://api.tavily.com";

    public WebSettings {
        requireNonNull(backend, "backend");
        requireNonNull(tavilyUrl, "tavilyUrl");
        requireNonNull(timeout, "timeout");
        requireNonNull(userAgent, "userAgent");
        blockedHosts = List.copyOf(blockedHosts);
        if (maxResults <= 0) throw new IllegalArgumentException("web.search.max_results must be > 0");
        if (maxChars <= 0) throw new IllegalArgumentException("web.extract.max_chars must be > 0");
        if (maxBytes <= 0) throw new IllegalArgumentException("web.extract.max_bytes must be > 0");
        if (timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("web.extract.timeout_seconds must be > 0");
    }

    /** Reads the settings from the shared {@code tools.*} section; {@code version} goes into the User-Agent. */
    public static WebSettings from(PluginConfig tools, String version) {
        return new WebSettings(
                tools.string("web.search.backend", "auto").strip().toLowerCase(Locale.ROOT),
                blankToNull(tools.string("web.search.searxng.url").orElse(null)),
                blankToNull(tools.string("web.search.searxng.api_key").orElse(null)),
                tools.string("web.search.tavily.url").map(String::strip).filter(s -> !s.isEmpty())
                        .orElse(DEFAULT_TAVILY_URL),
                blankToNull(tools.string("web.search.tavily.api_key").orElse(null)),
                tools.integer("web.search.max_results", 5),
                tools.integer("web.extract.max_chars", 15_000),
                tools.longValue("web.extract.max_bytes", 5L * 1024 * 1024),
                tools.duration("web.extract.timeout_seconds", Duration.ofSeconds(20)),
                tools.bool("web.allow_private_addresses", false),
                tools.list("web.blocked_hosts", List.of()),
                "Caduceus/" + version);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
