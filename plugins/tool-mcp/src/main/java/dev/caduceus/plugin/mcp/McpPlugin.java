package dev.caduceus.plugin.mcp;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.plugin.mcp.http.HttpTransports;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.tool.ToolSource;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tool-mcp} plugin: the tools of the MCP servers configured in Hermes' top-level
 * {@code mcp_servers:} section, as agent tools {@code mcp_<server>_<tool>} (see the README). At start
 * the section is validated (a mistake stops the boot) and every enabled server is connected in
 * parallel, each within its {@code connect_timeout}; one that fails is reported unavailable and
 * retried, and the boot goes on.
 *
 * <p>Lifecycle: one instance per boot, started and stopped by the host on its boot thread; stop
 * closes every session and kills every stdio child with its descendants.
 */
public final class McpPlugin implements PlatformPlugin {
    private static final Logger log = LoggerFactory.getLogger(McpPlugin.class);
    /** Slack on top of the longest connect_timeout for the boot's wait. */
    private static final Duration BOOT_SLACK = Duration.ofSeconds(2);

    private McpToolSource source;

    @Override
    public List<PluginConfig.Setting> settings() {
        return List.of(new PluginConfig.Setting(ServersConfig.SECTION, PluginConfig.Setting.Type.OBJECT, null, List.of(),
                0, false, "MCP servers whose tools the agent gets, as in Hermes (name: {command, args, env, cwd} or "
                + "{url, headers}, timeout, connect_timeout, enabled, supports_parallel_tool_calls, tools)"));
    }

    @Override
    public void start(PlatformContext ctx) throws Exception {
        // The whole section: a key of "" reads the section's own node.
        var section = ctx.section(ServersConfig.SECTION).node("").orElse(null);
        var servers = ServersConfig.parse(section, new Substitution(ctx::environment), log::warn);
        var json = ctx.json();
        var mcpJson = new JacksonMcpJsonMapper(new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false));
        var tools = new ServerTools(json, mcpJson);
        var transports = transports(ctx);
        var source = new McpToolSource();
        for (var server : servers)
            source.add(new ServerLink(server, transports, tools, ctx.scheduler(), Backoff.DEFAULT, source::refresh));
        source.refresh();
        connectAll(source.links());
        this.source = source;
        ctx.health().register("mcp", source::health);
        var metrics = ctx.metrics();
        metrics.gauge("servers_connected", "MCP servers connected now (their tools are offered)",
                () -> count(source, ToolSource.Status.CONNECTED));
        metrics.gauge("servers_unavailable", "MCP servers not reachable now (retried with backoff)",
                () -> count(source, ToolSource.Status.UNAVAILABLE));
    }

    private static long count(McpToolSource source, ToolSource.Status status) {
        return source.snapshot().servers().stream().filter(s -> s.status() == status).count();
    }

    private static Connection.Transports transports(PlatformContext ctx) {
        var path = Optional.ofNullable(System.getenv("PATH"));
        var home = System.getProperty("user.home");
        return new Connection.Transports() {
            @Override
            public IsolatedStdioTransport stdio(ServerConfig server, McpJsonMapper json) {
                return new IsolatedStdioTransport(server.name(), server.command(), server.args(),
                        ChildEnvironment.of(server.env(), path, home), server.cwd(), json);
            }

            @Override
            public McpClientTransport http(ServerConfig server, McpJsonMapper json) {
                return HttpTransports.open(ctx.outbound(), server.url(), server.headers(), server.connectTimeout(), json);
            }

            @Override
            public String kind(McpClientTransport transport) {
                return HttpTransports.kind(transport);
            }
        };
    }

    /** Connects every enabled server at once and waits for each at most its connect_timeout. */
    private static void connectAll(List<ServerLink> links) throws InterruptedException {
        var threads = new ArrayList<Thread>();
        Duration longest = Duration.ZERO;
        for (var link : links) {
            if (!link.config().enabled()) continue;
            threads.add(Thread.ofVirtual().name("mcp-connect-" + link.config().name()).start(link::connect));
            if (link.config().connectTimeout().compareTo(longest) > 0) longest = link.config().connectTimeout();
        }
        long deadline = System.nanoTime() + longest.plus(BOOT_SLACK).toNanos();
        for (var thread : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) thread.join(Duration.ofNanos(left));
        }
    }

    @Override
    public List<ToolSource> toolSources(PlatformContext ctx) {
        return source == null ? List.of() : List.of(source);
    }

    @Override
    public void stop() {
        if (source == null) return;
        var threads = new ArrayList<Thread>();
        for (var link : source.links()) threads.add(Thread.ofVirtual().name("mcp-stop").start(link::stop));
        for (var thread : threads) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
