package dev.caduceus.plugin.capabilities;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolsetSpec;
import dev.caduceus.support.services.BatchCatalog;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Builds the three discovery documents from the host's frozen views. Every call reads the views
 * afresh; they are immutable after boot, so the documents are stable.
 */
final class Documents {
    private final PlatformContext ctx;

    Documents(PlatformContext ctx) {
        this.ctx = ctx;
    }

    /**
     * {@code GET /v1/models}: the advertised model name first (the caller's key may set its own), then each model
     * route ({@code model.routes}) the key may use ({@code --models}) by name, which a request's {@code model} picks.
     */
    JsonNode models(Caller caller) {
        var root = ctx.json().createObjectNode().put("object", "list");
        var data = root.putArray("data");
        long created = ctx.clock().instant().getEpochSecond();
        for (var name : dev.caduceus.support.wire.ModelField.names(ctx, caller)) model(data, name, created);
        return root;
    }

    private void model(com.fasterxml.jackson.databind.node.ArrayNode data, String id, long created) {
        data.addObject()
                .put("id", id)
                .put("object", "model")
                .put("created", created)
                .put("owned_by", "hermes")
                .<ObjectNode>set("permission", ctx.json().createArrayNode())
                .put("root", id)
                .putNull("parent");
    }

    /** {@code GET /v1/toolsets}: every toolset with whether the API agent uses it. */
    JsonNode toolsets() {
        var enabled = new TreeSet<String>();
        for (var name : ctx.global().agentToolsets()) {
            if (ctx.deployment().toolsets().stream().anyMatch(t -> t.name().equals(name))) enabled.add(name);
        }
        var root = ctx.json().createObjectNode().put("object", "list").put("platform", "api_server");
        var data = root.putArray("data");
        for (var toolset : ctx.deployment().toolsets()) {
            var tools = ctx.deployment().resolve(toolset.name());
            var entry = data.addObject()
                    .put("name", toolset.name())
                    .put("label", label(toolset.name()))
                    .put("description", toolset.description())
                    .put("enabled", enabled.contains(toolset.name()))
                    .put("configured", isAvailable(tools));
            var names = entry.putArray("tools");
            new TreeSet<>(tools).forEach(names::add);
        }
        return root;
    }

    /**
     * {@code GET /v1/capabilities}: the core's fields plus what every started plugin contributes; for
     * a key restricted to some families, the others' features read false.
     */
    JsonNode capabilities(Caller caller) {
        var deployment = ctx.deployment();
        var name = caller.modelName().orElse(ctx.global().modelName());
        var root = ctx.json().createObjectNode()
                .put("object", "hermes.api_server.capabilities")
                .put("platform", "hermes-agent")
                .put("model", name)
                .put("version", ctx.global().version());
        root.putObject("auth").put("type", "bearer").put("required", true);
        root.set("runtime", runtime(deployment.runtimeMode()));
        if (!"local".equals(deployment.runtimeMode())) relayTarget().ifPresent(t -> root.putObject("relay").put("target", t));
        root.set("features", features(deployment, caller));
        root.set("endpoints", endpoints(deployment));
        root.set("plugins", plugins(deployment));
        // proxy mode: tools run on the remote, so no local tool is listed
        root.set("tools", "local".equals(deployment.runtimeMode()) ? tools() : ctx.json().createObjectNode());
        root.set("toolsets", toolsetList());
        root.set("distributions", distributions());
        toolSources(deployment, root);
        return root;
    }

    /**
     * Each tool source's servers as {@code <id>_servers} ({@code mcp_servers}): name, transport,
     * status, tool count, and the reason when one is not connected.
     */
    private void toolSources(Deployment deployment, ObjectNode root) {
        for (var source : deployment.toolSources()) {
            var servers = root.putArray(source.id() + "_servers");
            for (var server : source.snapshot().servers()) {
                var entry = servers.addObject().put("name", server.name()).put("transport", server.transport())
                        .put("status", server.status().wire()).put("tools", server.tools().size());
                if (server.reason() != null) entry.put("reason", server.reason());
            }
        }
    }

    /** {@code scheme://host:port} of {@code gateway.proxy_url} (never its path, query or credentials). */
    private java.util.Optional<String> relayTarget() {
        try {
            return ctx.section("gateway").string("proxy_url").map(url -> {
                var uri = java.net.URI.create(url.strip());
                int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
                return uri.getScheme() + "://" + uri.getHost() + ":" + port;
            });
        } catch (RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    private ObjectNode runtime(String mode) {
        var runtime = ctx.json().createObjectNode();
        if ("local".equals(mode)) {
            return runtime.put("mode", "server_agent").put("tool_execution", "server").put("split_runtime", false)
                    .put("description", "Caduceus runs the agent in-process; tools execute on the server host inside its workspace.");
        }
        return runtime.put("mode", "proxy").put("tool_execution", "remote").put("split_runtime", true)
                .put("description", "Caduceus relays agent turns to a remote agent server (runtime '" + mode + "').");
    }

    private ObjectNode features(Deployment deployment, Caller caller) {
        var features = ctx.json().createObjectNode();
        for (var flag : KnownFeatures.FLAGS) features.put(flag, false);
        features.setAll(caller.families().isEmpty() ? deployment.features() : deployment.features(caller::mayUse));
        features.put("cors", deployment.corsEnabled());
        return features;
    }

    private ObjectNode endpoints(Deployment deployment) {
        var endpoints = ctx.json().createObjectNode();
        for (var route : deployment.routes()) {
            if (route.name() == null || endpoints.has(route.name())) continue;
            endpoints.putObject(route.name()).put("method", route.method()).put("path", route.path());
        }
        return endpoints;
    }

    private ArrayNode plugins(Deployment deployment) {
        var plugins = ctx.json().createArrayNode();
        for (var plugin : deployment.plugins()) {
            if (plugin.state() != Deployment.State.STARTED) continue;
            var entry = plugins.addObject().put("id", plugin.id()).put("version", plugin.version());
            var kinds = entry.putArray("kinds");
            plugin.kinds().forEach(kinds::add);
        }
        return plugins;
    }

    private ObjectNode tools() {
        Map<String, TreeSet<String>> byToolset = new TreeMap<>();
        for (Tool tool : ctx.deployment().tools()) {
            if (!tool.available()) continue;
            byToolset.computeIfAbsent(tool.spec().toolset(), k -> new TreeSet<>()).add(tool.spec().name());
        }
        var node = ctx.json().createObjectNode();
        byToolset.forEach((toolset, names) -> {
            var array = node.putArray(toolset);
            names.forEach(array::add);
        });
        return node;
    }

    private ArrayNode toolsetList() {
        var list = ctx.json().createArrayNode();
        for (ToolsetSpec toolset : ctx.deployment().toolsets()) {
            var tools = ctx.deployment().resolve(toolset.name());
            var entry = list.addObject().put("name", toolset.name()).put("description", toolset.description());
            var names = entry.putArray("tools");
            new TreeSet<>(tools).forEach(names::add);
            var includes = entry.putArray("includes");
            toolset.includes().forEach(includes::add);
            entry.put("available", isAvailable(tools));
        }
        return list;
    }

    private ArrayNode distributions() {
        var list = ctx.json().createArrayNode();
        var sorted = new java.util.ArrayList<BatchCatalog.Distribution>();
        ctx.services(BatchCatalog.class).forEach(catalog -> sorted.addAll(catalog.distributions()));
        sorted.sort(java.util.Comparator.comparing(BatchCatalog.Distribution::name));
        for (var distribution : sorted) {
            var entry = list.addObject().put("name", distribution.name()).put("description", distribution.description());
            var toolsets = entry.putObject("toolsets");
            new TreeMap<>(distribution.toolsetPercent()).forEach(toolsets::put);
        }
        return list;
    }

    private boolean isAvailable(java.util.Set<String> toolNames) {
        return toolNames.stream().map(ctx.deployment()::tool).anyMatch(t -> t.isPresent() && t.get().available());
    }

    private static String label(String name) {
        var words = name.replace('-', ' ').replace('_', ' ').split(" ");
        var sb = new StringBuilder();
        for (var word : words) {
            if (word.isEmpty()) continue;
            if (!sb.isEmpty()) sb.append(' ');
            sb.append(word.substring(0, 1).toUpperCase(Locale.ROOT)).append(word.substring(1));
        }
        return sb.toString();
    }
}
