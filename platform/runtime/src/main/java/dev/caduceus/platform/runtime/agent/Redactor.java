package dev.caduceus.platform.runtime.agent;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Secret redaction for tool results, previews and upstream error texts: every
 * occurrence of a secret the server knows becomes {@code [REDACTED]}, also inside longer tokens, and
 * also when the secret is reversed, hex-encoded (either case), base64-encoded (standard or URL-safe
 * alphabet, padded or not, at any byte offset inside a longer encoded stream, wrapped at any column
 * as {@code base64} does at 76), percent-encoded or JSON-escaped, or reversed first and then
 * encoded. Secrets shorter than
 * {@value #MIN_LENGTH} characters are not masked (they would mask ordinary words).
 *
 * <p><b>This is defence in depth, not containment.</b> A command can always split or transform a
 * secret further ({@code cut -c1-10}, {@code rot13}, {@code gzip | base64}, one character per
 * line…) and nothing that looks at output can undo every transformation. What contains an agent is
 * the sandbox its tools run in and keeping secrets out of the tools' reach (the file tools refuse
 * the server's state files by identity; tool processes must not inherit the server's credentials);
 * the redactor only catches the accidental and the obvious.
 *
 * <p>Callers add secrets in their clear form through {@link #builder()} or {@link #of(Collection)};
 * the encodings are this class's business. The matcher over all forms (an Aho–Corasick automaton,
 * one pass over the text whatever the number of secrets) is built once, on first use rather than
 * during the boot (it takes tens of milliseconds in a cold JVM). Thread-safe; immutable apart from
 * that one-time build.
 */
public final class Redactor {
    /** The replacement text. */
    public static final String MASK = "[REDACTED]";
    static final int MIN_LENGTH = 8;
    private static final List<String> SECRET_SUFFIXES =
            List.of("_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS");
    private static final List<String> SECRET_PARTS = List.of("API_KEY", "ACCESS_KEY", "SECRET", "PASSWORD");
    private static final Redactor NONE = new Redactor(Set.of());

    private final Set<String> secrets;
    private volatile LiteralMatcher matcher;

    private Redactor(Set<String> secrets) {
        this.secrets = secrets;
    }

    /** Nothing to redact. */
    public static Redactor none() {
        return NONE;
    }

    /** A redactor of these clear-text secrets (nulls and values too short to mask are ignored). */
    public static Redactor of(Collection<String> secrets) {
        return builder().addAll(secrets).build();
    }

    /** The configured secrets plus the secret-looking variables of {@code env} ({@link #secretVariable}). */
    public static Redactor of(Collection<String> configured, Map<String, String> env) {
        return builder().addAll(configured).addEnvironment(env).build();
    }

    /** An empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * True when an environment variable's name says it holds a credential: it ends in {@code _KEY},
     * {@code _TOKEN}, {@code _SECRET}, {@code _PASSWORD}, {@code _PASSWD} or {@code _CREDENTIALS}, or
     * contains {@code API_KEY}, {@code ACCESS_KEY}, {@code SECRET} or {@code PASSWORD} (any case). This
     * covers the host's documented names ({@code API_SERVER_KEY}, {@code OPENAI_API_KEY},
     * {@code GATEWAY_PROXY_KEY}), the variables plugins declare for their secret settings, which by
     * convention end in {@code _KEY} or {@code _TOKEN}, and the usual upstream ones
     * ({@code OPENROUTER_API_KEY}, {@code ANTHROPIC_API_KEY}, {@code GITHUB_TOKEN}).
     */
    public static boolean secretVariable(String name) {
        var upper = name.toUpperCase(Locale.ROOT);
        return SECRET_SUFFIXES.stream().anyMatch(upper::endsWith) || SECRET_PARTS.stream().anyMatch(upper::contains);
    }

    /** How many distinct secrets this redactor masks. */
    public int size() {
        return secrets.size();
    }

    /** {@code text} with every form of every secret replaced by {@value #MASK}; null stays null. */
    public String redact(String text) {
        if (text == null || text.isEmpty() || secrets.isEmpty()) return text;
        return matcher().replace(text, MASK);
    }

    private LiteralMatcher matcher() {
        var built = matcher;
        if (built != null) return built;
        synchronized (this) {
            if (matcher == null) {
                var forms = new LinkedHashSet<String>();
                for (var secret : secrets) forms.addAll(SecretForms.of(secret));
                matcher = new LiteralMatcher(forms);
            }
            return matcher;
        }
    }

    @Override
    public String toString() {
        return "Redactor[" + secrets.size() + " secrets]"; // never the values
    }

    /** Collects clear-text secrets. Not thread-safe; build once at start-up. */
    public static final class Builder {
        private final Set<String> secrets = new LinkedHashSet<>();

        private Builder() {}

        /** Adds a secret (and its form without surrounding whitespace); null or short values are ignored. */
        public Builder add(String secret) {
            if (secret == null) return this;
            for (var s : List.of(secret, secret.strip())) if (s.length() >= MIN_LENGTH) secrets.add(s);
            return this;
        }

        /** Adds each secret as {@link #add} does. */
        public Builder addAll(Collection<String> secrets) {
            secrets.forEach(this::add);
            return this;
        }

        /** Adds the values of the variables whose names {@linkplain #secretVariable look secret}. */
        public Builder addEnvironment(Map<String, String> env) {
            env.forEach((name, value) -> {
                if (name != null && secretVariable(name)) add(value);
            });
            return this;
        }

        public Redactor build() {
            return secrets.isEmpty() ? NONE : new Redactor(Set.copyOf(secrets));
        }
    }
}
