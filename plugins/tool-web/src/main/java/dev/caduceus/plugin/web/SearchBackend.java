package dev.caduceus.plugin.web;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.tool.Cancellation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A search service behind {@code web_search}. Implementations are stateless apart from
 * their configuration and thread-safe; {@link #search} blocks until the answer, its timeout or a cancel.
 */
interface SearchBackend {
    /** The most of a backend's answer read (a JSON list of hits is far smaller). */
    int MAX_BODY_BYTES = 8 << 20;

    /** The name used by {@code tools.web.search.backend}. */
    String name();

    /**
     * Up to {@code maxResults} hits for {@code query}; throws {@link IOException} with a message for the
     * model ({@link OutboundHttp.Failure} when the exchange itself failed, timed out or was cancelled).
     */
    List<Hit> search(String query, int maxResults, Cancellation cancellation) throws IOException;

    /** One search hit. */
    record Hit(String title, String url, String description) {
        public Hit {
            requireNonNull(title, "title");
            requireNonNull(url, "url");
            requireNonNull(description, "description");
        }
    }

    /**
     * Sends {@code request} (cancelled with the run) and reads a 2xx answer as JSON; any other status
     * fails with the backend's status and a short piece of its body.
     */
    static JsonNode exchange(String backend, OutboundHttp http, OutboundHttp.Request request, Cancellation cancellation,
                             ObjectMapper json) throws IOException {
        try (var exchange = http.prepare(request); var link = CancelLink.of(cancellation, exchange)) {
            var response = exchange.send();
            int status = response.status();
            if (status / 100 != 2) {
                var body = response.text(4096).strip();
                if (body.length() > 200) body = body.substring(0, 200) + "…";
                throw new IOException(backend + " returned HTTP " + status + (body.isEmpty() ? "" : ": " + body));
            }
            return json.readTree(response.text(MAX_BODY_BYTES));
        }
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
