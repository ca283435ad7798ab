package dev.caduceus.platform.host.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.caduceus.spi.config.ConfigException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${NAME}} in the config file's strings, replaced by the variable {@code NAME} of the environment (or of
 * {@code $CADUCEUS_HOME/.env}), so that a secret can live outside the file ({@code secret: ${HOOK_SECRET}}), as
 * in Hermes' {@code config.yaml}. {@code $${} writes a literal {@code ${}. A variable that is not set is an
 * error naming the key, the file and the variable, not an empty value. Stateless.
 */
final class EnvReferences {
    private static final Pattern REFERENCE = Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private EnvReferences() {}

    /** {@code root} (from {@code file}) with every reference in its strings replaced, in place. */
    static ObjectNode expand(ObjectNode root, Map<String, String> variables, String file) {
        walk(root, "", variables, file);
        return root;
    }

    private static void walk(JsonNode node, String key, Map<String, String> variables, String file) {
        if (node instanceof ObjectNode object) {
            for (var names = object.fieldNames(); names.hasNext(); ) {
                var name = names.next();
                var child = object.get(name);
                var childKey = key.isEmpty() ? name : key + "." + name;
                if (child.isTextual()) object.set(name, expanded(child.asText(), childKey, variables, file));
                else walk(child, childKey, variables, file);
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                var child = array.get(i);
                var childKey = key + "[" + i + "]";
                if (child.isTextual()) array.set(i, expanded(child.asText(), childKey, variables, file));
                else walk(child, childKey, variables, file);
            }
        }
    }

    private static TextNode expanded(String text, String key, Map<String, String> variables, String file) {
        if (!text.contains("${")) return TextNode.valueOf(text);
        Matcher m = REFERENCE.matcher(text);
        var out = new StringBuilder();
        while (m.find()) {
            String replacement;
            if (m.group(1) == null) {
                replacement = "${";
            } else {
                replacement = variables.get(m.group(1));
                if (replacement == null)
                    throw new ConfigException(key, key + " in " + file + " names ${" + m.group(1)
                            + "}, but the variable " + m.group(1) + " is not set (in the environment or "
                            + DotEnv.NAME + "); set it, or write $${ for a literal ${");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return TextNode.valueOf(out.toString());
    }
}
