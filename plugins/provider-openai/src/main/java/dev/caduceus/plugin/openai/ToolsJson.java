package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.caduceus.spi.tool.ToolSpec;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code tools} array of an upstream request, serialized once per set of tools. Every model call
 * offers the tools of its turn, and every turn of a deployment offers mostly the same set — the
 * same {@link ToolSpec} instances, which the tool plugins create once — so the ~10 KB of schemas
 * were serialized again on every call (about a tenth of a chat turn's CPU in the S1 benchmark).
 * Keyed by the specs' identity (a spec is immutable; comparing schemas would cost what it saves);
 * at most {@value #MAX_SETS} sets are kept and the cache starts over when full. The value is a
 * {@link SerializedString}, which keeps its UTF-8 bytes: the generator copies them instead of
 * encoding 10 KB of characters per call (a raw {@code String} was ~5 % of a turn's CPU). Thread-safe.
 */
final class ToolsJson {
    static final int MAX_SETS = 64;
    private final ObjectMapper json;
    private final Map<Key, SerializableString> cache = new ConcurrentHashMap<>();

    ToolsJson(ObjectMapper json) {
        this.json = json;
    }

    /** The specs as the request's {@code tools} array of {@code {"type":"function","function":{…}}}, sorted by name. */
    SerializableString of(List<ToolSpec> specs) {
        var key = new Key(specs);
        var cached = cache.get(key);
        if (cached != null) return cached;
        SerializableString serialized = new SerializedString(serialize(specs));
        if (cache.size() >= MAX_SETS) cache.clear();
        cache.put(key, serialized);
        return serialized;
    }

    private String serialize(List<ToolSpec> specs) {
        ArrayNode tools = json.createArrayNode();
        specs.stream().sorted(Comparator.comparing(ToolSpec::name)).forEach(spec -> {
            var node = tools.addObject().put("type", "function");
            node.putObject("function").put("name", spec.name()).put("description", spec.description())
                    .set("parameters", spec.parameters());
        });
        try {
            return json.writeValueAsString(tools);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize tool schemas", e); // a tree always serializes
        }
    }

    /** A list of specs compared by identity, element by element. */
    private static final class Key {
        private final ToolSpec[] specs;
        private final int hash;

        Key(List<ToolSpec> specs) {
            this.specs = specs.toArray(ToolSpec[]::new);
            int h = 1;
            for (var spec : this.specs) h = 31 * h + System.identityHashCode(spec);
            this.hash = h;
        }

        @Override
        public boolean equals(Object other) {
            if (!(other instanceof Key that) || that.hash != hash || that.specs.length != specs.length) return false;
            for (int i = 0; i < specs.length; i++) if (specs[i] != that.specs[i]) return false;
            return true;
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
