package dev.caduceus.platform.server;

import dev.caduceus.platform.runtime.assembly.Assembly;
import dev.caduceus.platform.host.boot.BootMode;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.plugin.BoundToolSource;
import dev.caduceus.spi.tool.ToolSource;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caduceus mcp list|test}: the MCP servers of {@code mcp_servers}, as the tool-mcp plugin's
 * tool source (id {@value #SOURCE}) reports them after connecting at boot. Boots the plugins against a
 * scratch database, as {@code caduceus plugins} does, so the server's state is not touched; the
 * servers are really started (stdio) or called (HTTP). Exit status 1 when a server asked for is not
 * connected, 2 when it is not configured or tool-mcp is not enabled.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = {"The MCP servers configured in mcp_servers (config.yaml, Hermes' layout): their state and tools.",
                "Connects to them as the server would, against a scratch database."},
        subcommands = {McpCommand.ListServers.class, McpCommand.Test.class})
final class McpCommand implements Callable<Integer> {
    /** The tool-mcp plugin's tool source id. */
    static final String SOURCE = "mcp";

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.ParentCommand Main main;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Boots, finds the MCP tool source and hands its snapshot to {@code report}. */
    private static int withServers(Main main, Main.ConfigOptions options, PrintWriter out,
                                   java.util.function.ToIntFunction<ToolSource.Snapshot> report) throws BootException {
        try (var boot = Assembly.assemble(options.toPlatformOptions(List.of(), main.env()), new BootMode.Scratch())) {
            var source = boot.registries().toolSources().stream()
                    .map(BoundToolSource::of).filter(s -> s.id().equals(SOURCE)).findFirst();
            if (source.isEmpty()) {
                out.println("No MCP tool source: no enabled plugin contributes one (see 'caduceus plugins').");
                out.flush();
                return 2;
            }
            int status = report.applyAsInt(source.get().snapshot());
            out.flush();
            return status;
        }
    }

    private static void printServer(PrintWriter out, ToolSource.Server server, ToolSource.Snapshot snapshot, boolean details) {
        int count = server.tools().size();
        out.printf("%-24s %-6s %-12s %d tool%s%n", server.name(), server.transport(), server.status().wire(), count,
                count == 1 ? "" : "s");
        if (server.reason() != null) out.println("    reason: " + server.reason());
        for (var name : server.tools()) {
            var description = snapshot.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst()
                    .map(t -> t.spec().description()).orElse("");
            out.println("    " + name + (details ? "\n        " + oneLine(description) : ""));
        }
    }

    private static String oneLine(String text) {
        var line = text == null ? "" : text.strip().replaceAll("\\s+", " ");
        return line.length() > 160 ? line.substring(0, 157) + "..." : line;
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Each configured MCP server: transport, state (connected, unavailable with the reason, disabled) and tools.")
    static final class ListServers implements Callable<Integer> {
        @CommandLine.Mixin Main.ConfigOptions options = new Main.ConfigOptions();
        @CommandLine.ParentCommand McpCommand mcp;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var out = spec.commandLine().getOut();
            return withServers(mcp.main, options, out, snapshot -> {
                if (snapshot.servers().isEmpty()) {
                    out.println("No MCP servers configured (mcp_servers in config.yaml).");
                    return 0;
                }
                out.printf("%-24s %-6s %-12s %s%n", "SERVER", "VIA", "STATE", "TOOLS");
                snapshot.servers().forEach(server -> printServer(out, server, snapshot, false));
                return 0;
            });
        }
    }

    @Command(name = "test", mixinStandardHelpOptions = true,
            description = {"Connect to one configured MCP server and print what it offers, with each tool's description.",
                    "Exit status 0 when it connected, 1 when it did not, 2 when no server has that name."})
    static final class Test implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", description = "the server's name under mcp_servers") String name;
        @CommandLine.Mixin Main.ConfigOptions options = new Main.ConfigOptions();
        @CommandLine.ParentCommand McpCommand mcp;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var out = spec.commandLine().getOut();
            return withServers(mcp.main, options, out, snapshot -> {
                var server = snapshot.servers().stream().filter(s -> s.name().equals(name)).findFirst();
                if (server.isEmpty()) {
                    out.println("No MCP server '" + name + "' in mcp_servers (configured: "
                            + String.join(", ", snapshot.servers().stream().map(ToolSource.Server::name).toList()) + ").");
                    return 2;
                }
                printServer(out, server.get(), snapshot, true);
                return server.get().status() == ToolSource.Status.CONNECTED ? 0 : 1;
            });
        }
    }
}
