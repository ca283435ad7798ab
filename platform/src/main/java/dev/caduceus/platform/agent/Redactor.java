package dev.caduceus.platform.agent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Secret redaction for tool results, previews and upstream error texts (tools.md §3.5): every
 * configured secret and every environment variable whose name ends in {@code _KEY}, {@code _TOKEN},
 * {@code _SECRET} or {@code _PASSWORD} (values of at least 8 characters) becomes {@code [REDACTED]}.
 * Immutable.
 */
public record Redactor(List<String> secrets) {
    private static final int MIN_LENGTH = 8;
    private static final List<String> SUFFIXES = List.of("_KEY", "_TOKEN", "_SECRET", "_PASSWORD");

    public Redactor {
        // longest first, so a secret containing another is replaced whole
        secrets = secrets.stream().filter(s -> s != null && s.length() >= MIN_LENGTH).distinct()
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }

    /** Nothing to redact. */
    public static Redactor none() {
        return new Redactor(List.of());
    }

    /** The configured secrets plus the secret-looking variables of {@code env}. */
    public static Redactor of(Collection<String> configured, Map<String, String> env) {
        var all = new ArrayList<String>(configured);
        env.forEach((name, value) -> {
            if (SUFFIXES.stream().anyMatch(name::endsWith)) all.add(value);
        });
        return new Redactor(all);
    }

    /** {@code text} with every secret replaced; null stays null. */
    public String redact(String text) {
        if (text == null || secrets.isEmpty()) return text;
        var out = text;
        for (var secret : secrets) if (out.contains(secret)) out = out.replace(secret, "[REDACTED]");
        return out;
    }
}
