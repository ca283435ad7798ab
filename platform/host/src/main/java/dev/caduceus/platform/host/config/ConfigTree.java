package dev.caduceus.platform.host.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The merged configuration tree (file, then environment, then flags) with the source of every leaf
 * (a file path, {@code environment variable X}, {@code flag --x}). Lists are leaves. Immutable once
 * built: {@link #node} and {@link #subtree} return copies, and {@link #toString()} shows keys only.
 */
public final class ConfigTree {
    private final ObjectNode root;
    private final Map<String, String> sources;

    private ConfigTree(ObjectNode root, Map<String, String> sources) {
        this.root = root;
        this.sources = Map.copyOf(sources);
    }

    /** An empty tree. */
    public static ConfigTree empty() {
        return new ConfigTree(JsonNodeFactory.instance.objectNode(), Map.of());
    }

    /** A tree from a parsed file, every leaf sourced to {@code source}. */
    static ConfigTree of(ObjectNode root, String source) {
        Map<String, String> sources = new LinkedHashMap<>();
        leaves(root, "", (key, node) -> sources.put(key, source));
        return new ConfigTree(root.deepCopy(), sources);
    }

    /** A new tree with {@code key} set to the string {@code value}, replacing whatever was there. */
    ConfigTree with(String key, String value, String source) {
        ObjectNode copy = root.deepCopy();
        String[] parts = key.split("\\.");
        ObjectNode parent = copy;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = parent.get(parts[i]);
            parent = child instanceof ObjectNode o ? o : parent.putObject(parts[i]);
        }
        parent.set(parts[parts.length - 1], TextNode.valueOf(value));
        Map<String, String> newSources = new LinkedHashMap<>(sources);
        newSources.keySet().removeIf(k -> k.startsWith(key + ".") || key.startsWith(k + "."));
        newSources.put(key, source);
        return new ConfigTree(copy, newSources);
    }

    /**
     * A new tree with the value at {@code from} moved to {@code to} (which must be unset), its source
     * kept and naming the key it was written as; parents left empty by the move are removed.
     */
    ConfigTree moved(String from, String to) {
        var value = node(from).orElseThrow(() -> new IllegalArgumentException(from + " is not set"));
        ObjectNode copy = root.deepCopy();
        remove(copy, from.split("\\."), 0);
        String[] parts = to.split("\\.");
        ObjectNode parent = copy;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = parent.get(parts[i]);
            parent = child instanceof ObjectNode o ? o : parent.putObject(parts[i]);
        }
        parent.set(parts[parts.length - 1], value);
        Map<String, String> newSources = new LinkedHashMap<>();
        String source = source(from);
        sources.forEach((k, v) -> {
            if (!k.equals(from) && !k.startsWith(from + ".")) newSources.put(k, v);
        });
        newSources.keySet().removeIf(k -> k.equals(to) || k.startsWith(to + "."));
        leaves(value, to, (key, node) -> newSources.put(key, source + " (as " + from + ")"));
        return new ConfigTree(copy, newSources);
    }

    /** Removes {@code path[i..]} below {@code node}; true when {@code node} is left empty. */
    private static boolean remove(ObjectNode node, String[] path, int i) {
        if (i == path.length - 1) {
            node.remove(path[i]);
        } else if (node.get(path[i]) instanceof ObjectNode child && remove(child, path, i + 1)) {
            node.remove(path[i]);
        }
        return node.isEmpty();
    }

    /** The value at a dotted key (a copy), or empty. */
    public Optional<JsonNode> node(String key) {
        JsonNode node = root;
        for (String part : key.split("\\.")) {
            node = node.isObject() ? node.get(part) : null;
            if (node == null) return Optional.empty();
        }
        return node.isNull() || node.isMissingNode() ? Optional.empty() : Optional.of(node.deepCopy());
    }

    /** The object at a dotted key (a copy), or an empty object. */
    public ObjectNode subtree(String key) {
        return node(key).filter(JsonNode::isObject).map(n -> (ObjectNode) n)
                .orElseGet(JsonNodeFactory.instance::objectNode);
    }

    /**
     * Where {@code key} came from: the source of the key itself, or of the first leaf below it,
     * or {@code default} when it is not set.
     */
    public String source(String key) {
        String direct = sources.get(key);
        if (direct != null) return direct;
        return sources.entrySet().stream().filter(e -> e.getKey().startsWith(key + "."))
                .map(Map.Entry::getValue).findFirst().orElse("default");
    }

    /** Every leaf key in the tree, in file order. */
    public List<String> leafKeys() {
        List<String> keys = new ArrayList<>();
        leaves(root, "", (key, node) -> keys.add(key));
        return List.copyOf(keys);
    }

    static void leaves(JsonNode node, String prefix, java.util.function.BiConsumer<String, JsonNode> visit) {
        if (node.isObject() && (node.size() > 0 || prefix.isEmpty())) {
            node.properties().forEach(e -> leaves(e.getValue(),
                    prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), visit));
        } else {
            visit.accept(prefix, node);
        }
    }

    @Override
    public String toString() {
        return "ConfigTree" + leafKeys(); // values may be secrets
    }
}
