package dev.caduceus.plugin.mcp;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One entry of {@code mcp_servers:}, validated and with its {@code ${VAR}} references resolved.
 * Exactly one of {@code command} (stdio) and {@code url} (HTTP) is set. Immutable.
 *
 * @param name           the configured name (the key under {@code mcp_servers})
 * @param command        the program to start, for a stdio server; null otherwise
 * @param args           its arguments
 * @param env            the child's environment on top of a minimal PATH and HOME
 * @param cwd            the child's working directory; null for ours
 * @param url            the server's endpoint, for an HTTP server; null otherwise
 * @param headers        HTTP headers sent with every request (may hold credentials)
 * @param timeout        {@code timeout}: how long one tool call may take
 * @param connectTimeout {@code connect_timeout}: how long connecting (start, initialize, list) may take
 * @param enabled        {@code enabled}
 * @param parallelSafe   {@code supports_parallel_tool_calls}
 * @param filter         {@code tools:}
 */
record ServerConfig(String name, String command, List<String> args, Map<String, String> env, Path cwd, URI url,
                    Map<String, String> headers, Duration timeout, Duration connectTimeout, boolean enabled,
                    boolean parallelSafe, ToolFilter filter) {
    /** Hermes' default tool-call timeout. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);
    /** Hermes' default connect timeout. */
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(60);

    ServerConfig {
        requireNonNull(name, "name");
        if ((command == null) == (url == null)) throw new IllegalArgumentException("exactly one of command and url");
        args = List.copyOf(args);
        env = Map.copyOf(env);
        headers = Map.copyOf(headers);
        requireNonNull(timeout, "timeout");
        requireNonNull(connectTimeout, "connectTimeout");
        requireNonNull(filter, "filter");
    }

    /** Whether the server is a child process. */
    boolean stdio() {
        return command != null;
    }
}
