package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A SearXNG JSON API (or compatible) backend: {@code GET {url}/search?q=<query>&format=json} with an
 * optional {@code Authorization: Bearer <api_key>}. The URL is trusted configuration, so the address
 * guard does not apply. Immutable; thread-safe.
 */
final class SearxngBackend implements SearchBackend {
    private final Supplier<HttpClient> client;
    private final ObjectMapper json;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    SearxngBackend(Supplier<HttpClient> client, ObjectMapper json, String baseUrl, String apiKey, Duration timeout) {
        this.client = client;
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
    public List<Hit> search(String query, int maxResults) throws IOException, InterruptedException {
        var uri = URI.create(baseUrl + "/search?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&format=json");
        var request = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET();
        if (apiKey != null) request.header("Authorization", "Bearer " + apiKey);
        var response = client.get().send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        SearchBackend.requireSuccess("SearXNG", response);
        return SearchBackend.hits(json.readTree(response.body()), maxResults);
    }
}
