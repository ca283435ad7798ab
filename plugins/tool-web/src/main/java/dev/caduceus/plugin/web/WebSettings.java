package dev.caduceus.plugin.web;

import static dev.caduceus.plugin.web.WebKeys.*;
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

    public static final String DEFAULT_TAVILY_URL = WebKeys.DEFAULT_TAVILY_URL;

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
                tools.string(inTools(BACKEND), DEFAULT_BACKEND).strip().toLowerCase(Locale.ROOT),
                blankToNull(tools.string(inTools(SEARXNG_URL)).orElse(null)),
                blankToNull(tools.string(inTools(SEARXNG_API_KEY)).orElse(null)),
                tools.string(inTools(TAVILY_URL)).map(String::strip).filter(s -> !s.isEmpty())
                        .orElse(WebKeys.DEFAULT_TAVILY_URL),
                blankToNull(tools.string(inTools(TAVILY_API_KEY)).orElse(null)),
                tools.integer(inTools(MAX_RESULTS), DEFAULT_MAX_RESULTS),
                tools.integer(inTools(MAX_CHARS), DEFAULT_MAX_CHARS),
                tools.longValue(inTools(MAX_BYTES), DEFAULT_MAX_BYTES),
                tools.duration(inTools(TIMEOUT), DEFAULT_TIMEOUT),
                tools.bool(inTools(ALLOW_PRIVATE), false),
                tools.list(inTools(BLOCKED_HOSTS), List.of()),
                "Caduceus/" + version);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
