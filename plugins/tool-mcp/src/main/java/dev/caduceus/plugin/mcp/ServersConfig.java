package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.spi.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads Hermes' top-level {@code mcp_servers:} section: one mapping per server name, with the keys
 * {@code command, args, env, cwd} (stdio), {@code url, headers} (HTTP), {@code timeout},
 * {@code connect_timeout} (seconds), {@code enabled}, {@code supports_parallel_tool_calls} and
 * {@code tools: {include, exclude, resources, prompts}}. A key it does not know is warned about
 * ({@code mcp_servers.<name>.<key>}) and ignored; a value of the wrong type, a server with both or
 * neither of {@code command} and {@code url}, or an unresolved {@code ${VAR}} is a
 * {@link ConfigException} naming the server and the key. Values of {@code env} and {@code headers} are
 * never quoted in messages (they hold credentials). {@code ${VAR}} references of a disabled server are
 * left unresolved. Stateless.
 */
final class ServersConfig {
    static final String SECTION = "mcp_servers";
    private static final Set<String> KEYS = Set.of("command", "args", "env", "cwd", "url", "headers", "timeout",
            "connect_timeout", "enabled", "supports_parallel_tool_calls", "tools");
    private static final Set<String> FILTER_KEYS = Set.of("include", "exclude", "resources", "prompts");

    private ServersConfig() {}

    /**
     * The servers of {@code section} (the {@code mcp_servers} mapping, or null when absent), in
     * configuration order; {@code warn} receives one line per unknown key.
     */
    static List<ServerConfig> parse(JsonNode section, Substitution substitution, Consumer<String> warn) {
        var servers = new ArrayList<ServerConfig>();
        if (section == null || section.isNull() || section.isMissingNode()) return servers;
        if (!section.isObject()) throw new ConfigException(SECTION, SECTION + " is not a mapping of server names");
        var sanitized = new LinkedHashMap<String, String>();
        for (var entry : section.properties()) {
            var server = new Server(entry.getKey(), entry.getValue(), substitution, warn).parse();
            var other = sanitized.putIfAbsent(ToolNames.component(server.name()), server.name());
            if (other != null)
                warn.accept("MCP servers '" + other + "' and '" + server.name() + "' give the same tool names (mcp_"
                        + ToolNames.component(server.name()) + "_...); the tools of '" + server.name()
                        + "' that clash are left out");
            servers.add(server);
        }
        return servers;
    }

    /** One server's entry. */
    private record Server(String name, JsonNode node, Substitution substitution, Consumer<String> warn) {

        ServerConfig parse() {
            String base = SECTION + "." + name;
            if (!node.isObject()) throw new ConfigException(base, "Invalid value for " + base + ": an MCP server is a "
                    + "mapping (command/args/env, or url/headers)");
            for (var field : node.properties())
                if (!KEYS.contains(field.getKey()))
                    warn.accept("Unknown configuration key " + key(field.getKey()) + "; it is ignored");
            boolean enabled = bool("enabled", node.get("enabled"), true);
            boolean hasCommand = present("command");
            boolean hasUrl = present("url");
            if (hasCommand && hasUrl)
                throw new ConfigException(key("url"), "MCP server '" + name + "' sets both " + key("command")
                        + " and " + key("url") + "; a server is either a command (stdio) or a url (HTTP)");
            if (!hasCommand && !hasUrl)
                throw new ConfigException(base, "MCP server '" + name + "' sets neither " + key("command")
                        + " (stdio) nor " + key("url") + " (HTTP)");
            String command = null;
            List<String> args = List.of();
            Map<String, String> env = Map.of();
            Path cwd = null;
            URI url = null;
            Map<String, String> headers = Map.of();
            if (hasCommand) {
                command = resolve(enabled, "command", text("command", node.get("command"), false));
                if (command.isBlank()) throw invalid("command", node.get("command"), "is empty", false);
                var rawArgs = node.get("args");
                args = resolveAll(enabled, "args", rawArgs != null && rawArgs.isTextual()
                        ? ShellWords.split(rawArgs.asText(), key("args")) // Hermes takes a string too, split as a shell would
                        : strings("args", rawArgs));
                env = resolveAll(enabled, "env", mapping("env", node.get("env")));
                cwd = path("cwd", node.get("cwd"));
                for (var httpOnly : List.of("headers"))
                    if (present(httpOnly)) warn.accept(key(httpOnly) + " applies to url servers only; it is ignored");
            } else {
                String raw = text("url", node.get("url"), false);
                url = enabled ? uriOrThrow(resolve(true, "url", raw)) : URI.create("http://disabled.invalid/");
                headers = resolveAll(enabled, "headers", mapping("headers", node.get("headers")));
                for (var stdioOnly : List.of("args", "env", "cwd"))
                    if (present(stdioOnly)) warn.accept(key(stdioOnly) + " applies to command servers only; it is ignored");
            }
            return new ServerConfig(name, command, args, env, cwd, url, headers,
                    seconds("timeout", node.get("timeout"), ServerConfig.DEFAULT_TIMEOUT),
                    seconds("connect_timeout", node.get("connect_timeout"), ServerConfig.DEFAULT_CONNECT_TIMEOUT),
                    enabled, bool("supports_parallel_tool_calls", node.get("supports_parallel_tool_calls"), false),
                    filter(node.get("tools")));
        }

        private boolean present(String field) {
            var value = node.get(field);
            return value != null && !value.isNull();
        }

        private String key(String field) {
            return SECTION + "." + name + "." + field;
        }

        private ConfigException invalid(String field, JsonNode value, String problem, boolean secret) {
            String shown = secret || value == null ? "" : quote(value) + " ";
            return new ConfigException(key(field), "Invalid value for " + key(field) + " (MCP server '" + name + "'): "
                    + shown + problem);
        }

        private String resolve(boolean enabled, String field, String value) {
            return enabled ? substitution.apply(key(field), value) : value;
        }

        private List<String> resolveAll(boolean enabled, String field, List<String> values) {
            var out = new ArrayList<String>(values.size());
            for (int i = 0; i < values.size(); i++) out.add(resolve(enabled, field + "[" + i + "]", values.get(i)));
            return out;
        }

        private Map<String, String> resolveAll(boolean enabled, String field, Map<String, String> values) {
            var out = new LinkedHashMap<String, String>();
            values.forEach((k, v) -> out.put(k, resolve(enabled, field + "." + k, v)));
            return out;
        }

        private String text(String field, JsonNode value, boolean secret) {
            if (value != null && value.isValueNode() && !value.isNull()) return value.asText();
            throw invalid(field, value, "is not a string", secret);
        }

        private List<String> strings(String field, JsonNode value) {
            if (value == null || value.isNull()) return List.of();
            if (!value.isArray()) throw invalid(field, value, "is not a list of strings", false);
            var out = new ArrayList<String>();
            for (var item : value) {
                if (!item.isValueNode() || item.isNull()) throw invalid(field, value, "is not a list of strings", false);
                out.add(item.asText());
            }
            return out;
        }

        private Map<String, String> mapping(String field, JsonNode value) {
            if (value == null || value.isNull()) return Map.of();
            if (!value.isObject()) throw invalid(field, value, "is not a mapping of names to strings", true);
            var out = new LinkedHashMap<String, String>();
            for (var entry : value.properties()) {
                var item = entry.getValue();
                if (item == null || item.isNull() || !item.isValueNode())
                    throw invalid(field + "." + entry.getKey(), item, "is not a string", true);
                out.put(entry.getKey(), item.asText());
            }
            return out;
        }

        private Path path(String field, JsonNode value) {
            if (value == null || value.isNull()) return null;
            String text = text(field, value, false).trim();
            try {
                if (text.isEmpty()) throw invalid(field, value, "is not a path", false);
                if (text.equals("~") || text.startsWith("~/"))
                    text = System.getProperty("user.home") + text.substring(1);
                return Path.of(text);
            } catch (InvalidPathException e) {
                throw invalid(field, value, "is not a path", false);
            }
        }

        private static URI uri(String text) {
            try {
                var uri = new URI(text.trim());
                if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null)
                    return uri;
            } catch (URISyntaxException e) {
                // reported below
            }
            return null;
        }

        private URI uriOrThrow(String resolved) {
            var uri = uri(resolved);
            if (uri == null) throw invalid("url", node.get("url"), "is not an http or https URL", false);
            return uri;
        }

        private Duration seconds(String field, JsonNode value, Duration fallback) {
            if (value == null || value.isNull()) return fallback;
            double seconds;
            if (value.isNumber()) seconds = value.asDouble();
            else if (value.isTextual() && value.asText().trim().matches("[0-9]+(\\.[0-9]+)?")) seconds = Double.parseDouble(value.asText().trim());
            else throw invalid(field, value, "is not a number of seconds", false);
            if (!(seconds > 0) || seconds > 86_400 * 7) throw invalid(field, value, "is not a number of seconds above 0", false);
            return Duration.ofMillis(Math.round(seconds * 1000));
        }

        private boolean bool(String field, JsonNode value, boolean fallback) {
            if (value == null || value.isNull()) return fallback;
            if (value.isBoolean()) return value.asBoolean();
            String text = value.isTextual() ? value.asText().trim().toLowerCase(Locale.ROOT) : "";
            return switch (text) {
                case "true", "yes", "on", "1" -> true;
                case "false", "no", "off", "0" -> false;
                default -> throw invalid(field, value, "is not true or false", false);
            };
        }

        private ToolFilter filter(JsonNode value) {
            if (value == null || value.isNull()) return ToolFilter.ALL;
            if (!value.isObject()) throw invalid("tools", value, "is not a mapping (include, exclude, resources, prompts)", false);
            for (var field : value.properties())
                if (!FILTER_KEYS.contains(field.getKey()))
                    warn.accept("Unknown configuration key " + key("tools." + field.getKey()) + "; it is ignored");
            return new ToolFilter(names("tools.include", value.get("include")), names("tools.exclude", value.get("exclude")),
                    bool("tools.resources", value.get("resources"), true), bool("tools.prompts", value.get("prompts"), true));
        }

        private Set<String> names(String field, JsonNode value) {
            if (value == null || value.isNull()) return Set.of();
            if (value.isTextual()) return Set.of(value.asText());
            return new LinkedHashSet<>(strings(field, value));
        }

        private static String quote(JsonNode node) {
            String text = node.isValueNode() ? node.asText() : node.toString();
            if (text.length() > 80) text = text.substring(0, 77) + "...";
            return "\"" + text.replace("\"", "\\\"") + "\"";
        }
    }
}
