package dev.caduceus.platform.host.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.caduceus.spi.config.ConfigException;
import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Converts one configuration value (a YAML node, or a string from the environment or a flag) to a
 * Java value, or throws {@link ConfigException} naming the key, the value (redacted when secret),
 * the expected form and the source. Stateless.
 */
record Values(String key, JsonNode node, String source, boolean secret) {
    private static final Pattern DURATION = Pattern.compile("([0-9]+)\\s*(ms|s|m|h)?");

    String string() {
        if (node.isValueNode() && !node.isNull()) return node.asText();
        throw invalid("is not a string");
    }

    long integer(long min, long max) {
        long value;
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            value = node.asLong();
        } else if (node.isTextual() && node.asText().trim().matches("[+-]?[0-9]{1,18}")) {
            value = Long.parseLong(node.asText().trim());
        } else {
            throw invalid(rangeText(min, max, "is not an integer"));
        }
        if (value < min || value > max) throw invalid(rangeText(min, max, "is not an integer"));
        return value;
    }

    boolean bool() {
        if (node.isBoolean()) return node.asBoolean();
        String text = node.isTextual() ? node.asText().trim().toLowerCase(Locale.ROOT) : "";
        return switch (text) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw invalid("is not true or false");
        };
    }

    /** One of {@code choices}, in any case ({@code WARN} is {@code warn}), returned as the choice is spelled. */
    String choice(List<String> choices) {
        String text = node.isValueNode() ? node.asText().trim() : null;
        if (text != null) {
            for (String choice : choices) if (choice.equalsIgnoreCase(text)) return choice;
        }
        throw invalid("is not one of " + String.join(", ", choices));
    }

    /**
     * A mapping of names to one of {@code choices} each, in the order written: a YAML mapping (nested
     * mappings join their keys with dots, so {@code dev: {caduceus: debug}} is {@code dev.caduceus}), or
     * from the environment or a flag {@code name=value,name=value}. A wrong value names its entry as
     * {@code key.name}.
     */
    Map<String, String> choiceMap(List<String> choices) {
        var entries = new LinkedHashMap<String, String>();
        if (node.isObject()) {
            ConfigTree.leaves(node, "", (name, value) -> entries.put(name, entry(name, value).choice(choices)));
        } else if (node.isTextual()) {
            for (String part : node.asText().split(",")) {
                if (part.isBlank()) continue;
                int eq = part.indexOf('=');
                if (eq <= 0) throw invalid("is not a list of name=value pairs (" + String.join(", ", choices) + ")");
                var name = part.substring(0, eq).trim();
                entries.put(name, entry(name, TextNode.valueOf(part.substring(eq + 1)))
                        .choice(choices));
            }
        } else {
            throw invalid("is not a mapping of names to " + String.join(", ", choices));
        }
        return Collections.unmodifiableMap(entries);
    }

    private Values entry(String name, JsonNode value) {
        if (name.isBlank() || name.startsWith(".") || name.endsWith("."))
            throw invalid("has an entry without a name");
        return new Values(key + "." + name, value, source, secret);
    }

    List<String> list() {
        List<String> items = new ArrayList<>();
        if (node.isArray()) {
            for (JsonNode item : node) {
                if (!item.isValueNode() || item.isNull()) throw invalid("is not a list of strings");
                items.add(item.asText());
            }
        } else if (node.isValueNode() && !node.isNull()) {
            for (String part : node.asText().split(",")) {
                if (!part.isBlank()) items.add(part.trim());
            }
        } else {
            throw invalid("is not a list of strings (a YAML list or comma-separated)");
        }
        return List.copyOf(items);
    }

    String url() {
        String text = string().trim();
        try {
            URI uri = new URI(text);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null)
                return text;
        } catch (java.net.URISyntaxException e) {
            // reported below
        }
        throw invalid("is not an http or https URL");
    }

    Path path(Path userHome) {
        String text = string().trim();
        if (text.isEmpty()) throw invalid("is not a path");
        try {
            if (text.equals("~")) return userHome;
            if (text.startsWith("~/")) return userHome.resolve(text.substring(2)).normalize();
            return Path.of(text).normalize();
        } catch (InvalidPathException e) {
            throw invalid("is not a path");
        }
    }

    Duration duration() {
        String text = node.isIntegralNumber() ? node.asText() : node.isTextual() ? node.asText().trim() : "";
        Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
        if (!m.matches() || m.group(1).length() > 12)
            throw invalid("is not a duration (seconds, or a number with ms, s, m or h, e.g. 30s)");
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    void requireObjectList() {
        if (!node.isArray()) throw invalid("is not a list of mappings");
        for (var item : node) if (!item.isObject()) throw invalid("is not a list of mappings");
    }

    void requireObject() {
        if (!node.isObject()) throw invalid("is not a mapping");
    }

    ConfigException invalid(String problem) {
        String shown = secret ? "<redacted>" : quote(node);
        return new ConfigException(key, "Invalid value for " + key + " in " + source + ": " + shown + " " + problem);
    }

    private static String rangeText(long min, long max, String base) {
        if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) return base + " >= " + min;
        return base + " between " + min + " and " + max;
    }

    private static String quote(JsonNode node) {
        String text = node.isValueNode() ? node.asText() : node.toString();
        if (text.length() > 80) text = text.substring(0, 77) + "...";
        return "\"" + text.replace("\"", "\\\"") + "\"";
    }
}
