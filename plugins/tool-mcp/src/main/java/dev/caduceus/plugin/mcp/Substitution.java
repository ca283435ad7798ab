package dev.caduceus.plugin.mcp;

import dev.caduceus.spi.config.ConfigException;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${VAR}} references in a setting's value, replaced from the host's environment (the process
 * environment over {@code $CADUCEUS_HOME/.env}), as Hermes does for {@code mcp_servers}; the
 * Cursor-style {@code ${env:VAR}} is accepted too. A reference to a variable that is not set is a
 * {@link ConfigException} naming the variable and the key, never the value. Immutable; thread-safe.
 */
final class Substitution {
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{\\s*(?:env:)?\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}");

    private final Function<String, Optional<String>> environment;

    Substitution(Function<String, Optional<String>> environment) {
        this.environment = environment;
    }

    /** {@code value} with every reference replaced; {@code key} names the setting in errors. */
    String apply(String key, String value) {
        Matcher m = REFERENCE.matcher(value);
        if (!m.find()) return value;
        var out = new StringBuilder();
        do {
            String name = m.group(1);
            String replacement = environment.apply(name).orElseThrow(() -> new ConfigException(key,
                    key + " refers to ${" + name + "}, which is set neither in the environment nor in .env"));
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        } while (m.find());
        m.appendTail(out);
        return out.toString();
    }
}
