package dev.caduceus.platform.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The front-end request fixtures ({@code fixtures/frontends/*.jsonl} on the classpath; see the README
 * there): recorded and template-built requests of Open WebUI, LibreChat and LobeChat, and near misses.
 * Stateless.
 */
public final class FrontendFixtures {
    /** Every fixture file. */
    public static final List<String> FILES = List.of("open-webui-0.9.5.jsonl", "open-webui-templates.jsonl",
            "librechat.jsonl", "lobe-chat.jsonl", "near-misses.jsonl");
    private static final ObjectMapper JSON = new ObjectMapper();

    private FrontendFixtures() {}

    /** The lines of one fixture file, in order. */
    public static List<JsonNode> load(String file) {
        try (var in = FrontendFixtures.class.getResourceAsStream("/fixtures/frontends/" + file)) {
            if (in == null) throw new IllegalArgumentException("no fixture " + file);
            var lines = new ArrayList<JsonNode>();
            for (var line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
                if (!line.isBlank()) lines.add(JSON.readTree(line));
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every line of every file. */
    public static List<JsonNode> all() {
        var all = new ArrayList<JsonNode>();
        FILES.forEach(f -> all.addAll(load(f)));
        return all;
    }

    /** Whether a line is a housekeeping request ({@code kind} {@code housekeeping:<task>}). */
    public static boolean housekeeping(JsonNode line) {
        return line.path("kind").asText().startsWith("housekeeping:");
    }
}
