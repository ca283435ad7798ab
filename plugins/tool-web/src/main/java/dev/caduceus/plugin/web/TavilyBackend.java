package dev.caduceus.plugin.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A Tavily (or compatible) backend: {@code POST {url}/search} with
 * {@code {"api_key", "query", "max_results"}} and {@code Authorization: Bearer <key>}. The URL is
 * trusted configuration, so the address guard does not apply. Immutable; thread-safe.
 */
final class TavilyBackend implements SearchBackend {
    private final Supplier<HttpClient> client;
    private final ObjectMapper json;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    TavilyBackend(Supplier<HttpClient> client, ObjectMapper json, String baseUrl, String apiKey, Duration timeout) {
        this.client = client;
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
    public List<Hit> search(String query, int maxResults) throws IOException, InterruptedException {
        var body = json.createObjectNode().put("api_key", apiKey).put("query", query).put("max_results", maxResults);
        var request = HttpRequest.newBuilder(URI.create(baseUrl + "/search"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("Authorization", "Bearer " + apiKey)
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body), StandardCharsets.UTF_8))
                .build();
        var response = client.get().send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        SearchBackend.requireSuccess("Tavily", response);
        return SearchBackend.hits(json.readTree(response.body()), maxResults);
    }
}
