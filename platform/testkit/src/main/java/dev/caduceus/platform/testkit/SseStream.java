package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One server-sent-events response read frame by frame: {@link #next()} blocks for the next frame,
 * {@link #comments()} keeps the comment lines skipped on the way ({@code stream closed}), and
 * {@link #close()} drops the connection like a client whose network went away. When the status is not
 * 200 the body is an error document: read it with {@link #body()}. Confined to one thread.
 */
public final class SseStream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One frame.
     *
     * @param id    the {@code id:} line, or null
     * @param event the {@code event:} line, or null
     * @param data  the {@code data:} line parsed as JSON (null for {@code [DONE]})
     * @param raw   the frame's lines as sent
     */
    public record Frame(Long id, String event, JsonNode data, String raw) {
        /** {@code data.event}, the discriminator of the runs and responses streams, or "". */
        public String type() {
            return data == null ? "" : data.path("event").asText(data.path("type").asText());
        }
    }

    private final HttpResponse<InputStream> response;
    private final BufferedReader reader;
    private final List<String> comments = new ArrayList<>();

    SseStream(HttpResponse<InputStream> response) {
        this.response = response;
        this.reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    public int status() {
        return response.statusCode();
    }

    public HttpHeaders headers() {
        return response.headers();
    }

    public Optional<String> header(String name) {
        return response.headers().firstValue(name);
    }

    /** The whole body as text: the error document of a non-200 answer. */
    public String body() {
        try {
            var text = new StringBuilder();
            for (String line; (line = reader.readLine()) != null; ) text.append(line).append('\n');
            return text.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #body()} parsed as JSON. */
    public JsonNode json() throws IOException {
        return JSON.readTree(body());
    }

    /** Comment lines seen so far, without the colon. */
    public List<String> comments() {
        return List.copyOf(comments);
    }

    /** The next frame, or null at the end of the stream. */
    public Frame next() throws IOException {
        Long id = null;
        String event = null;
        String data = null;
        var raw = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null)
                    return new Frame(id, event, data.equals("[DONE]") ? null : JSON.readTree(data), raw.toString());
                continue;
            }
            raw.append(line).append('\n');
            if (line.startsWith(":")) comments.add(line.substring(1).strip());
            else if (line.startsWith("id:")) id = Long.parseLong(line.substring(3).strip());
            else if (line.startsWith("event:")) event = line.substring(6).strip();
            else if (line.startsWith("data:")) data = data == null ? line.substring(5).strip() : data + "\n" + line.substring(5).strip();
        }
        return null;
    }

    /** Frames up to and including the first whose {@link Frame#type()} is {@code type}; fails at the end. */
    public List<Frame> until(String type) throws IOException {
        var frames = new ArrayList<Frame>();
        while (true) {
            var frame = next();
            if (frame == null) throw new AssertionError("the stream ended before a " + type + " frame: " + frames);
            frames.add(frame);
            if (frame.type().equals(type)) return frames;
        }
    }

    /** Every remaining frame, to the end of the stream. */
    public List<Frame> rest() throws IOException {
        var frames = new ArrayList<Frame>();
        for (Frame f; (f = next()) != null; ) frames.add(f);
        return frames;
    }

    /** Drops the connection. */
    @Override
    public void close() {
        try {
            response.body().close();
        } catch (IOException ignored) {
            // the connection is going away either way
        }
    }
}
