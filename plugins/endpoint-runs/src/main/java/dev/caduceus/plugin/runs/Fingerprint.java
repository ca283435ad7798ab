package dev.caduceus.plugin.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.support.idempotency.IdempotencyCache;
import java.util.ArrayList;

/**
 * The request fingerprint stored with a durable idempotency key: lowercase hex
 * sha256 of the canonical JSON of {@code {"body": <request body>, "session_key": <header or "">}},
 * canonical meaning object keys sorted at every depth and no whitespace. The same body in another
 * memory scope is another request. Stateless.
 */
final class Fingerprint {
    private Fingerprint() {}

    static String of(JsonNode body, String sessionKey) {
        var subject = JsonNodeFactory.instance.objectNode();
        subject.set("body", body);
        subject.put("session_key", sessionKey == null ? "" : sessionKey);
        return IdempotencyCache.sha256Hex(canonical(subject).toString());
    }

    /** {@code node} with object keys sorted at every depth; arrays keep their order. */
    static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            var names = new ArrayList<String>();
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            var sorted = JsonNodeFactory.instance.objectNode();
            for (var name : names) sorted.set(name, canonical(node.get(name)));
            return sorted;
        }
        if (node.isArray()) {
            var array = JsonNodeFactory.instance.arrayNode(node.size());
            for (var item : node) array.add(canonical(item));
            return array;
        }
        return node;
    }
}
