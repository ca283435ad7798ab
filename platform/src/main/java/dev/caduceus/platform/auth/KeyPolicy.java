package dev.caduceus.platform.auth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a named key may do. Immutable.
 *
 * @param families          endpoint families it may use ({@code chat}, {@code responses}, …); empty: all
 * @param modelName         the model id its clients see on {@code /v1/models}, if not the server's
 * @param requestsPerMinute its request rate limit; 0: none
 */
public record KeyPolicy(List<String> families, Optional<String> modelName, int requestsPerMinute) {
    /** No restriction. */
    public static final KeyPolicy NONE = new KeyPolicy(List.of(), Optional.empty(), 0);
    private static final Pattern WORD = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}");

    public KeyPolicy {
        families = List.copyOf(new TreeSet<>(families));
        requireNonNull(modelName, "modelName");
        if (requestsPerMinute < 0) throw new IllegalArgumentException("requestsPerMinute must be >= 0");
    }

    /**
     * A policy from the {@code key add} options; every value checked.
     *
     * @param families  comma-separated family ids, or null
     * @param modelName a model id, or null
     * @param rpm       requests per minute as typed, or null
     * @throws IllegalArgumentException naming the option and the rule
     */
    public static KeyPolicy parse(String families, String modelName, String rpm) {
        var list = new ArrayList<String>();
        if (families != null) {
            for (var part : families.split(",")) {
                var id = part.strip();
                if (!WORD.matcher(id).matches())
                    throw new IllegalArgumentException("--families: '" + id + "' is not a family id (chat, responses, runs, …)");
                list.add(id);
            }
        }
        if (modelName != null && !MODEL.matcher(modelName).matches())
            throw new IllegalArgumentException("--model-name: '" + modelName + "' is not a model id (letters, digits, . _ : / -)");
        int perMinute = 0;
        if (rpm != null) {
            try {
                perMinute = Integer.parseInt(rpm.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--rpm: '" + rpm + "' is not a whole number");
            }
            if (perMinute < 1 || perMinute > 1_000_000)
                throw new IllegalArgumentException("--rpm must be between 1 and 1000000: " + rpm);
        }
        return new KeyPolicy(list, Optional.ofNullable(modelName), perMinute);
    }

    ObjectNode toJson() {
        var node = JsonNodeFactory.instance.objectNode();
        var array = node.putArray("families");
        families.forEach(array::add);
        modelName.ifPresent(m -> node.put("model_name", m));
        if (requestsPerMinute > 0) node.put("rpm", requestsPerMinute);
        return node;
    }

    static KeyPolicy fromJson(JsonNode node) {
        var families = new ArrayList<String>();
        node.path("families").forEach(f -> families.add(f.asText()));
        var model = node.path("model_name").isTextual() ? Optional.of(node.path("model_name").asText()) : Optional.<String>empty();
        return new KeyPolicy(families, model, node.path("rpm").asInt(0));
    }

    /** For {@code key list}: {@code families=chat,runs model=m rpm=60}, or {@code -}. */
    public String describe() {
        var parts = new ArrayList<String>();
        if (!families.isEmpty()) parts.add("families=" + String.join(",", families));
        modelName.ifPresent(m -> parts.add("model=" + m));
        if (requestsPerMinute > 0) parts.add("rpm=" + requestsPerMinute);
        return parts.isEmpty() ? "-" : String.join(" ", parts);
    }
}
