package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A Tavily (or compatible) backend: {@code POST {url}/search} with
 * {@code {"api_key", "query", "max_results"}} and {@code Authorization: Bearer <key>}. The URL is
 * trusted configuration, so the request may go anywhere ({@link OutboundHttp.Egress#any()}).
 * Immutable; thread-safe.
 */
final class TavilyBackend implements SearchBackend {
    private final OutboundHttp http;
    private final ObjectMapper json;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    TavilyBackend(OutboundHttp http, ObjectMapper json, String baseUrl, String apiKey, Duration timeout) {
        this.http = http;
        this.json = json;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.apiKey = apiKey;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "tavily";
    }

    @Override
    public List<Hit> search(String query, int maxResults, Cancellation cancellation) throws IOException {
        var body = json.createObjectNode().put("api_key", apiKey).put("query", query).put("max_results", maxResults);
        var request = OutboundHttp.Request.post(URI.create(baseUrl + "/search"), "application/json",
                        json.writeValueAsBytes(body))
                .withHeader("Accept", "application/json")
                .withHeader("Authorization", "Bearer " + apiKey)
                .withTimeouts(timeout, timeout, timeout)
                .withEgress(OutboundHttp.Egress.any());
        return SearchBackend.hits(SearchBackend.exchange("Tavily", http, request, cancellation, json), maxResults);
    }
}
