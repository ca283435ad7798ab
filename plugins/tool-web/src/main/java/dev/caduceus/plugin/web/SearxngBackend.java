package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A SearXNG JSON API (or compatible) backend: {@code GET {url}/search?q=<query>&format=json} with an
 * optional {@code Authorization: Bearer <api_key>}. The URL is trusted configuration, so the request
 * may go anywhere ({@link OutboundHttp.Egress#any()}); redirects are followed by the client. Immutable;
 * thread-safe.
 */
final class SearxngBackend implements SearchBackend {
    private final OutboundHttp http;
    private final ObjectMapper json;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    SearxngBackend(OutboundHttp http, ObjectMapper json, String baseUrl, String apiKey, Duration timeout) {
        this.http = http;
        this.json = json;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.apiKey = apiKey;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "searxng";
    }

    @Override
    public List<Hit> search(String query, int maxResults, Cancellation cancellation) throws IOException {
        var uri = URI.create(baseUrl + "/search?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&format=json");
        var request = OutboundHttp.Request.get(uri).withHeader("Accept", "application/json")
                .withTimeouts(timeout, timeout, timeout).withEgress(OutboundHttp.Egress.any());
        if (apiKey != null) request = request.withHeader("Authorization", "Bearer " + apiKey);
        return SearchBackend.hits(SearchBackend.exchange("SearXNG", http, request, cancellation, json), maxResults);
    }
}
