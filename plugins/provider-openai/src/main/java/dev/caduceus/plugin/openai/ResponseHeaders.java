package dev.caduceus.plugin.openai;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Response header fields with case-insensitive names; a name may repeat. Immutable once built by
 * {@link ResponseHead}.
 */
final class ResponseHeaders {
    private final Map<String, List<String>> fields;

    ResponseHeaders(Map<String, List<String>> fields) {
        var copy = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
        fields.forEach((name, values) -> copy.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values));
        copy.replaceAll((name, values) -> List.copyOf(values));
        this.fields = copy;
    }

    /** The first value of a field. */
    Optional<String> firstValue(String name) {
        var values = fields.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    /** Every value of a field, in arrival order. */
    List<String> allValues(String name) {
        return fields.getOrDefault(name, List.of());
    }

    /**
     * Whether a comma-separated field ({@code Connection}, {@code Transfer-Encoding}) lists a token,
     * ignoring case.
     */
    boolean hasToken(String name, String token) {
        for (var value : allValues(name))
            for (var part : value.split(","))
                if (part.strip().toLowerCase(Locale.ROOT).equals(token)) return true;
        return false;
    }

    @Override
    public String toString() {
        return fields.toString();
    }
}
