package dev.caduceus.platform.host.config;

import dev.caduceus.spi.config.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The places where the seed (Hermes) configures its API server, mapped onto ours, so a Hermes
 * user's {@code config.yaml} works unchanged. Hermes reads the API server's block from
 * {@code gateway.api_server}, {@code gateway.platforms.api_server} or {@code platforms.api_server};
 * in each, {@code port, key, host, cors_origins, model_name} may sit in the block or in its
 * {@code extra:} mapping, where Hermes' adapter reads them, and {@code enabled} in the block; newer Hermes'
 * {@code model_routes} (aliases a request's {@code model} may name) becomes {@code model.routes}. Each
 * becomes its {@code server.*} key ({@code key} is {@code server.api_key}); the environment's
 * {@code API_SERVER_*} variables then win over the file as they do in Hermes, because they are
 * applied after this. A setting written in two places (say {@code server.port} and
 * {@code gateway.api_server.port}, or {@code port} and {@code extra.port}) is an error naming both,
 * since which one the user meant cannot be known. Other keys of those blocks are left where they
 * are, to be reported as unknown. Stateless.
 */
final class HermesLayout {
    /** The seed's blocks, in the order their places are listed in errors. */
    static final List<String> BLOCKS = List.of("gateway.api_server", "gateway.platforms.api_server",
            "platforms.api_server");

    /** A block's key → our key. */
    static final Map<String, String> KEYS = keys();

    private HermesLayout() {}

    private static Map<String, String> keys() {
        var keys = new LinkedHashMap<String, String>();
        keys.put("enabled", "server.enabled");
        keys.put("port", "server.port");
        keys.put("host", "server.host");
        keys.put("key", "server.api_key");
        keys.put("cors_origins", "server.cors_origins");
        keys.put("model_name", "server.model_name");
        keys.put("model_routes", "model.routes"); // newer Hermes: alias → {model, provider, base_url, api_key}
        return java.util.Collections.unmodifiableMap(keys);
    }

    /** {@code tree} (one file's) with the seed's places moved to ours. */
    static ConfigTree apply(ConfigTree tree) {
        for (var entry : KEYS.entrySet()) {
            var places = new ArrayList<String>();
            if (tree.node(entry.getValue()).isPresent()) places.add(entry.getValue());
            for (var block : BLOCKS) {
                var direct = block + "." + entry.getKey();
                if (tree.node(direct).isPresent()) places.add(direct);
                var extra = block + ".extra." + entry.getKey();
                if (!entry.getKey().equals("enabled") && tree.node(extra).isPresent()) places.add(extra);
            }
            if (places.size() > 1) {
                throw new ConfigException(places.get(1), tree.source(places.get(1)) + " sets " + entry.getValue()
                        + " in " + places.size() + " places: " + String.join(" and ", places)
                        + "; keep one of them");
            }
            if (places.size() == 1 && !places.getFirst().equals(entry.getValue()))
                tree = tree.moved(places.getFirst(), entry.getValue());
        }
        return tree;
    }
}
