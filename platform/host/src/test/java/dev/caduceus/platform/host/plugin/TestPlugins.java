package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.HealthChecks;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PluginInfo;
import dev.caduceus.spi.Scheduler;
import dev.caduceus.spi.config.GlobalConfig;
import dev.caduceus.spi.config.PluginConfig;
import dev.caduceus.spi.store.PluginDatabase;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Sources of small recording plugins and a minimal context for the plugin package's tests. Each
 * generated plugin appends lines such as {@code start:hello tccl=true} to {@code <base>/events.log}
 * (found through its data directory), so tests observe lifecycle order without shared state.
 */
final class TestPlugins {
    private TestPlugins() {}

    /**
     * A {@code PlatformPlugin} named {@code pkg.Plugin} for {@code id}. {@code startExtra} runs at the
     * end of {@code start}; {@code members} adds methods (contribution overrides).
     */
    static String source(String pkg, String id, String startExtra, String members) {
        return """
                package %1$s;
                import dev.caduceus.spi.*;
                import dev.caduceus.spi.http.*;
                import dev.caduceus.spi.tool.*;
                import com.fasterxml.jackson.databind.node.*;
                import java.nio.file.*;
                import java.util.*;
                public class Plugin implements PlatformPlugin {
                    private PlatformContext ctx;
                    boolean tccl() { return Thread.currentThread().getContextClassLoader() == getClass().getClassLoader(); }
                    void log(String line) {
                        try {
                            Files.writeString(ctx.plugin().dataDir().getParent().resolve("events.log"), line + "\\n",
                                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                        } catch (java.io.IOException e) { throw new java.io.UncheckedIOException(e); }
                    }
                    static Tool tool(String name, String description) {
                        return new Tool() {
                            public ToolSpec spec() {
                                return new ToolSpec(name, description, JsonNodeFactory.instance.objectNode(), "test",
                                        List.of(), ToolRisk.READ_ONLY, 1000, true, false, null);
                            }
                            public ToolResult call(ToolCall call, ToolContext c) { return new ToolResult.Ok(name); }
                        };
                    }
                    @Override public void start(PlatformContext ctx) throws Exception {
                        this.ctx = ctx;
                        log("start:%2$s tccl=" + tccl());
                        %3$s
                    }
                    @Override public void stop() { log("stop:%2$s tccl=" + tccl()); }
                    %4$s
                }
                """.formatted(pkg, id, startExtra, members);
    }

    /** A plugin jar for {@code id} with the recording plugin in package {@code test.<id>}. */
    static TestPluginJars.Builder jar(String id, String startExtra, String members) {
        var pkg = "test." + id.replace('-', '_');
        return TestPluginJars.plugin(id)
                .source(pkg + ".Plugin", source(pkg, id, startExtra, members))
                .services(pkg + ".Plugin");
    }

    static TestPluginJars.Builder jar(String id) {
        return jar(id, "", "");
    }

    static List<String> events(Path base) {
        var file = base.resolve("data").resolve("events.log");
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Only {@code plugin()} works; data dirs are {@code <base>/data/<id>}. */
    static PlatformContext context(Path base, PluginDescriptorView view) {
        try {
            Files.createDirectories(base.resolve("data"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var info = new PluginInfo(view.id(), view.version(), view.jar(), base.resolve("data").resolve(view.id()));
        return new PlatformContext() {
            public PluginInfo plugin() { return info; }
            public PluginConfig config() { throw new UnsupportedOperationException(); }
            public GlobalConfig global() { throw new UnsupportedOperationException(); }
            public ObjectMapper json() { throw new UnsupportedOperationException(); }
            public PluginDatabase database() { throw new UnsupportedOperationException(); }
            public Scheduler scheduler() { throw new UnsupportedOperationException(); }
            public Clock clock() { return Clock.systemUTC(); }
            public HealthChecks health() { throw new UnsupportedOperationException(); }
            public PluginConfig section(String name) { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.agent.Runs runs() { throw new UnsupportedOperationException(); }
            public java.util.Optional<String> environment(String name) { return java.util.Optional.empty(); }
            public dev.caduceus.spi.agent.Sessions sessions() { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.model.Models models() { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.outbound.OutboundHttp outbound() { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.webhook.Webhooks webhooks() { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.Deployment deployment() { throw new UnsupportedOperationException(); }
            public dev.caduceus.spi.metrics.Metrics metrics() { throw new UnsupportedOperationException(); }
            public <T> java.util.Optional<T> service(Class<T> type) { throw new UnsupportedOperationException(); }
        };
    }

    static PluginHost.Options options(Path plugins, boolean strict) {
        return new PluginHost.Options(List.of(plugins), List.of(), List.of(), strict, "0.1.0");
    }

    /** Loads and starts with no before-start work. */
    static BootedPlugins boot(PluginHost host, Path base) {
        return host.start(p -> {}, view -> context(base, view));
    }
}
