package dev.caduceus.platform.runtime.routing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.model.ModelProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The routes of {@code model.*}: the default route (the configured model: {@code model.base_url} and
 * {@code model.name}, plus {@code model.deployments}, falling back to {@code model.fallbacks}) and each named route
 * of {@code model.routes}, either one upstream ({@code {base_url, api_key, model}}, the first form) or
 * {@code {deployments: [...], fallbacks: [...]}}. A deployment: {@code base_url} (without it: the configured upstream,
 * {@code model.base_url}, asked for the deployment's {@code model}, as Hermes' {@code model_routes} aliases are), {@code api_key} or
 * {@code api_key_env} (a variable of the environment or {@code .env}), {@code model} (default: the route's model:
 * {@code model.name} for the default route, the route's name for another), {@code weight} (1), {@code rpm} (0: no
 * cap), {@code timeout_seconds}, {@code provider} (default: the configured provider). Immutable.
 */
public final class RouteTable {
    /** The default route's name in logs and on the health page. */
    public static final String DEFAULT = "default";

    private final Route defaultRoute;
    private final Map<String, Route> routes; // by name, the default route under the configured model name too
    private final List<ConfigException> warnings;

    private RouteTable(Route defaultRoute, Map<String, Route> routes, List<ConfigException> warnings) {
        this.defaultRoute = defaultRoute;
        this.warnings = List.copyOf(warnings);
        this.routes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(routes)); // configuration order
    }

    /** One route of one deployment: the configured provider as it is (no {@code model.routes}). */
    public static RouteTable single(ModelProvider provider, String model) {
        var route = new Route(DEFAULT, List.of(new Deployment(DEFAULT + "/0", provider, model == null ? "" : model, 1, 0)), List.of());
        var byName = new LinkedHashMap<String, Route>();
        if (model != null) byName.put(model, route);
        return new RouteTable(route, byName, List.of());
    }

    /** What the configuration sets that no route reads (a misspelt field), each naming its key: the boot logs them. */
    public List<ConfigException> warnings() {
        return warnings;
    }

    /**
     * Reads the routes of {@code config}; {@code primary} serves the default route's first deployment,
     * {@code providers} gives a deployment's provider by id ({@code provider}, default {@code primary}'s) and
     * {@code env} the variables an {@code api_key_env} names.
     *
     * @throws ConfigException naming the key (and the file it came from) of what is wrong
     */
    public static RouteTable from(PlatformConfig config, ModelProvider primary, Function<String, Optional<ModelProvider>> providers,
                                  Function<String, Optional<String>> env) {
        var tree = config.tree();
        var model = config.model().name().orElse(null);
        var reader = new Reader(tree, primary, providers, env, new ArrayList<>());
        var defaults = new ArrayList<Deployment>();
        var modelNode = tree.node("model").filter(JsonNode::isObject).orElse(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
        defaults.add(new Deployment(DEFAULT + "/0", primary, model == null ? "" : model, 1, 0,
                reader.integer("model", modelNode, "tpm", 0, 0), reader.integer("model", modelNode, "context_window", 0, 0),
                reader.price("model.price", modelNode.get("price"))));
        var extra = tree.node("model.deployments");
        if (extra.isPresent())
            for (int i = 0; i < extra.get().size(); i++)
                defaults.add(reader.deployment("model.deployments[" + i + "]", extra.get().get(i), DEFAULT + "/" + (i + 1),
                        model));
        var defaultRoute = new Route(DEFAULT, defaults, reader.names("model.fallbacks", tree.node("model.fallbacks")));
        var byName = new LinkedHashMap<String, Route>();
        var named = tree.node("model.routes");
        if (named.isPresent()) {
            if (!named.get().isObject()) throw reader.error("model.routes", "must be a mapping of route names");
            for (var entry : named.get().properties()) {
                var name = entry.getKey();
                var key = "model.routes." + name;
                var node = entry.getValue();
                if (!node.isObject()) throw reader.error(key, "must be a mapping ({base_url, model} or {deployments: [...]})");
                var list = new ArrayList<Deployment>();
                if (node.has("deployments")) {
                    reader.unknown(key, node, java.util.Set.of("deployments", "fallbacks"), "route");
                    var deployments = node.get("deployments");
                    if (!deployments.isArray() || deployments.isEmpty())
                        throw reader.error(key + ".deployments", "must be a list of at least one deployment");
                    for (int i = 0; i < deployments.size(); i++)
                        list.add(reader.deployment(key + ".deployments[" + i + "]", deployments.get(i), name + "/" + i, name));
                } else {
                    list.add(reader.deployment(key, node, name + "/0", name));
                }
                byName.put(name, new Route(name, list, reader.names(key + ".fallbacks", Optional.ofNullable(node.get("fallbacks")))));
            }
        }
        if (model != null) byName.putIfAbsent(model, defaultRoute);
        byName.putIfAbsent(DEFAULT, defaultRoute);
        var table = new RouteTable(defaultRoute, byName, reader.warnings());
        table.checkFallbacks(reader);
        return table;
    }

    private void checkFallbacks(Reader reader) {
        for (var route : routes.values())
            for (var fallback : route.fallbacks())
                if (!routes.containsKey(fallback))
                    throw reader.error(route == defaultRoute ? "model.fallbacks" : "model.routes." + route.name() + ".fallbacks",
                            "names no route: " + fallback + " (routes: " + String.join(", ", names()) + ")");
    }

    public Route defaultRoute() {
        return defaultRoute;
    }

    /** The route {@code name} picks (the configured model name picks the default route); empty for another name. */
    public Optional<Route> route(String name) {
        return name == null || name.isBlank() ? Optional.of(defaultRoute) : Optional.ofNullable(routes.get(name));
    }

    /** The named routes (not the default one), in configuration order. */
    public List<String> names() {
        return routes.entrySet().stream().filter(e -> e.getValue() != defaultRoute).map(Map.Entry::getKey).toList();
    }

    /** Every route, the default first, each once. */
    public List<Route> all() {
        var out = new ArrayList<Route>(List.of(defaultRoute));
        routes.values().stream().filter(r -> r != defaultRoute).distinct().forEach(out::add);
        return out;
    }

    /** The fields a deployment may set. */
    private static final java.util.Set<String> FIELDS = java.util.Set.of("base_url", "api_key", "api_key_env", "model",
            "weight", "rpm", "tpm", "timeout_seconds", "provider", "context_window", "price");
    /** The fields of a deployment's {@code price}, in USD per million tokens. */
    private static final java.util.Set<String> PRICE_FIELDS = java.util.Set.of("input", "cached_input", "output", "reasoning");

    /** Reads deployments; its errors name the key and the file it came from. */
    private record Reader(dev.caduceus.platform.host.config.ConfigTree tree, ModelProvider primary,
                          Function<String, Optional<ModelProvider>> providers, Function<String, Optional<String>> env,
                          List<ConfigException> warnings) {
        void unknown(String key, JsonNode node, java.util.Set<String> known, String what) {
            for (var field : (Iterable<String>) node::fieldNames)
                if (!known.contains(field) && !(what.equals("route") && field.equals("fallbacks")))
                    warnings.add(new ConfigException(key + "." + field, key + "." + field + " is not a " + what
                            + " setting and is ignored (" + String.join(", ", new java.util.TreeSet<>(known)) + ")"));
        }

        /** A {@code price} mapping ({@code input}, {@code cached_input}, {@code output}, {@code reasoning}), or free. */
        Price price(String key, JsonNode node) {
            if (node == null || node.isNull()) return Price.FREE;
            if (!node.isObject()) throw error(key, "must be a mapping of USD per million tokens (input, cached_input, output, reasoning)");
            unknown(key, node, PRICE_FIELDS, "price");
            try {
                return Price.perMillion(usd(key, node, "input"), usd(key, node, "cached_input"), usd(key, node, "output"),
                        usd(key, node, "reasoning"));
            } catch (IllegalArgumentException e) {
                throw error(key, e.getMessage());
            }
        }

        private java.math.BigDecimal usd(String key, JsonNode node, String field) {
            var value = node.get(field);
            if (value == null || value.isNull())
                return field.equals("cached_input") || field.equals("reasoning") ? null : java.math.BigDecimal.ZERO;
            try {
                var amount = value.isNumber() ? new java.math.BigDecimal(value.asText()) : new java.math.BigDecimal(value.asText().strip());
                if (amount.signum() < 0) throw error(key + "." + field, "must be at least 0");
                return amount;
            } catch (NumberFormatException e) {
                throw error(key + "." + field, "must be a number of USD per million tokens, not " + value.asText());
            }
        }

        ConfigException error(String key, String what) {
            return new ConfigException(key, key + " " + what); // the boot adds the file it came from
        }

        Deployment deployment(String key, JsonNode node, String name, String defaultModel) {
            if (node == null || !node.isObject()) throw error(key, "must be a mapping with base_url");
            unknown(key, node, FIELDS, "route");
            var baseUrl = text(node, "base_url");
            if (baseUrl != null && !baseUrl.startsWith("http://") && !baseUrl.startsWith("https://"))
                throw error(key + ".base_url", "must be an http(s) URL: " + baseUrl);
            var apiKey = text(node, "api_key");
            var keyEnv = text(node, "api_key_env");
            if (apiKey == null && keyEnv != null)
                apiKey = env.apply(keyEnv).orElseThrow(() -> error(key + ".api_key_env", "names " + keyEnv
                        + ", which is not set in the environment or .env"));
            var model = text(node, "model");
            if (model == null) model = defaultModel;
            if (model == null) throw error(key + ".model", "is required (model.name is not set)");
            int weight = integer(key, node, "weight", 1, 1);
            int rpm = integer(key, node, "rpm", 0, 0);
            int timeout = integer(key, node, "timeout_seconds", 0, 0);
            int tpm = integer(key, node, "tpm", 0, 0);
            int contextWindow = integer(key, node, "context_window", 0, 0);
            var providerId = text(node, "provider");
            var price = price(key + ".price", node.get("price"));
            if (baseUrl == null) { // the configured upstream (model.base_url) with another model: an alias
                if (apiKey != null || timeout > 0 || providerId != null && !providerId.equals(primary.id()))
                    throw error(key + ".base_url", "is required with api_key, timeout_seconds or another provider");
                return new Deployment(name, primary, model, weight, rpm, tpm, contextWindow, price);
            }
            var provider = providerId == null ? primary : providers.apply(providerId)
                    .orElseThrow(() -> error(key + ".provider", "names no enabled model provider: " + providerId));
            ModelProvider bound;
            try {
                bound = provider.at(new ModelProvider.Endpoint(baseUrl, apiKey, model,
                        timeout == 0 ? null : Duration.ofSeconds(timeout)));
            } catch (UnsupportedOperationException e) {
                throw error(key, e.getMessage());
            }
            return new Deployment(name, bound, model, weight, rpm, tpm, contextWindow, price);
        }

        List<String> names(String key, Optional<JsonNode> node) {
            if (node.isEmpty()) return List.of();
            var value = node.get();
            if (value.isTextual()) return List.of(value.asText());
            if (!value.isArray()) throw error(key, "must be a list of route names");
            var out = new ArrayList<String>();
            value.forEach(n -> out.add(n.asText()));
            return out;
        }

        int integer(String key, JsonNode node, String field, int fallback, int min) {
            var value = node.get(field);
            if (value == null || value.isNull()) return fallback;
            if (!value.isTextual() && !(value.isIntegralNumber() && value.canConvertToInt()))
                throw error(key + "." + field, "must be a whole number");
            int n = value.isTextual() ? parse(key + "." + field, value.asText()) : value.asInt();
            if (n < min) throw error(key + "." + field, "must be at least " + min);
            return n;
        }

        private int parse(String key, String text) {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                throw error(key, "must be a whole number, not " + text);
            }
        }

        private static String text(JsonNode node, String field) {
            var value = node.get(field);
            return value == null || value.isNull() || value.asText().isBlank() ? null : value.asText().strip();
        }
    }
}
