package dev.caduceus.plugin.web;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * A search service behind {@code web_search}. Implementations are stateless apart from
 * their configuration and thread-safe; {@link #search} blocks and may be interrupted.
 */
interface SearchBackend {

    /** The name used by {@code tools.web.search.backend}. */
    String name();

    /** Up to {@code maxResults} hits for {@code query}; throws {@link IOException} with a message for the model. */
    List<Hit> search(String query, int maxResults) throws IOException, InterruptedException;

    /** One search hit. */
    record Hit(String title, String url, String description) {
        public Hit {
            requireNonNull(title, "title");
            requireNonNull(url, "url");
            requireNonNull(description, "description");
        }
    }

    /** Fails with the backend's status and a short piece of its body unless the status is 2xx. */
    static void requireSuccess(String backend, HttpResponse<String> response) throws IOException {
        int status = response.statusCode();
        if (status / 100 == 2) return;
        var body = response.body() == null ? "" : response.body().strip();
        if (body.length() > 200) body = body.substring(0, 200) + "…";
        throw new IOException(backend + " returned HTTP " + status + (body.isEmpty() ? "" : ": " + body));
    }

    /** Maps {@code results[].title/url/content}, skipping entries without a URL. */
    static List<Hit> hits(JsonNode body, int maxResults) {
        var hits = new ArrayList<Hit>();
        for (var result : body.path("results")) {
            if (hits.size() >= maxResults) break;
            var url = result.path("url").asText("");
            if (url.isEmpty()) continue;
            hits.add(new Hit(result.path("title").asText(""), url, result.path("content").asText("")));
        }
        return hits;
    }
}
