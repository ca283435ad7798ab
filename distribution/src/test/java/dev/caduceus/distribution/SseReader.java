package dev.caduceus.distribution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A minimal server-sent-events client for tests: opens a stream, returns frames one at a time
 * ({@code id}, {@code event}, parsed {@code data}) and the comment lines it skipped, and can drop the
 * connection in the middle like a client whose network went away. Confined to one thread.
 */
final class SseReader implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One frame; {@code id} is null when the frame had no id line. */
    record Frame(Long id, String event, JsonNode data, String raw) {}

    private final HttpResponse<InputStream> response;
    private final BufferedReader reader;
    private final List<String> comments = new ArrayList<>();

    private SseReader(HttpResponse<InputStream> response) {
        this.response = response;
        this.reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    static SseReader open(HttpClient http, URI uri, Map<String, String> headers) throws Exception {
        var builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).GET();
        headers.forEach(builder::header);
        return new SseReader(http.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    int status() {
        return response.statusCode();
    }

    HttpResponse<InputStream> response() {
        return response;
    }

    /** Comment lines seen so far, without the leading colon. */
    List<String> comments() {
        return comments;
    }

    /** The next frame, or null at the end of the stream. */
    Frame next() throws IOException {
        Long id = null;
        String event = null;
        String data = null;
        var raw = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null) return new Frame(id, event, data.equals("[DONE]") ? null : JSON.readTree(data), raw.toString());
                continue;
            }
            raw.append(line).append('\n');
            if (line.startsWith(":")) comments.add(line.substring(1).strip());
            else if (line.startsWith("id: ")) id = Long.parseLong(line.substring(4));
            else if (line.startsWith("event: ")) event = line.substring(7);
            else if (line.startsWith("data: ")) data = line.substring(6);
        }
        return null;
    }

    /** Every remaining frame. */
    List<Frame> rest() throws IOException {
        var frames = new ArrayList<Frame>();
        for (Frame f; (f = next()) != null; ) frames.add(f);
        return frames;
    }

    /** The whole remaining body as text (for error answers). */
    String body() throws IOException {
        var text = new StringBuilder();
        for (String line; (line = reader.readLine()) != null; ) text.append(line).append('\n');
        return text.toString();
    }

    /** Drops the connection. */
    @Override
    public void close() throws IOException {
        response.body().close();
    }
}
