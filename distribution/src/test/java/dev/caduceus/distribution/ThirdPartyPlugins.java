package dev.caduceus.distribution;

import dev.caduceus.platform.host.plugin.TestPluginJars;
import java.nio.file.Path;

/**
 * Small third-party plugins, compiled at test time against api-spi only and written as jars, the
 * way an outside developer would build them.
 */
final class ThirdPartyPlugins {
    private ThirdPartyPlugins() {}

    /** {@code hello}: {@code GET /v1/hello} (greeting from {@code plugins.hello.greeting}), feature {@code hello}. */
    static Path hello(Path dir) {
        return TestPluginJars.plugin("hello").version("1.2.3")
                .source("com.example.hello.HelloPlugin", """
                        package com.example.hello;

                        import dev.caduceus.spi.PlatformContext;
                        import dev.caduceus.spi.PlatformPlugin;
                        import dev.caduceus.spi.http.EndpointFamily;
                        import dev.caduceus.spi.http.Routes;
                        import java.util.List;

                        public final class HelloPlugin implements PlatformPlugin {
                            @Override
                            public List<EndpointFamily> endpoints(PlatformContext ctx) {
                                var greeting = ctx.config().string("greeting", "hello");
                                return List.of(new EndpointFamily() {
                                    @Override public String id() { return "hello"; }
                                    @Override public String basePath() { return "/v1/hello"; }
                                    @Override public void routes(Routes routes) {
                                        routes.get("/v1/hello", "hello", exchange -> exchange.respond(200,
                                                ctx.json().createObjectNode().put("message", greeting)));
                                    }
                                    @Override public com.fasterxml.jackson.databind.node.ObjectNode features() {
                                        return ctx.json().createObjectNode().put("hello", true);
                                    }
                                });
                            }
                        }
                        """)
                .services("com.example.hello.HelloPlugin")
                .writeTo(dir);
    }

    /** {@code echo}: {@code POST /v1/echo} answers the parsed JSON body; owns a table through a migration. */
    static Path echo(Path dir) {
        return TestPluginJars.plugin("echo")
                .source("com.example.echo.EchoPlugin", """
                        package com.example.echo;

                        import dev.caduceus.spi.PlatformContext;
                        import dev.caduceus.spi.PlatformPlugin;
                        import dev.caduceus.spi.http.EndpointFamily;
                        import dev.caduceus.spi.http.Routes;
                        import java.util.List;

                        public final class EchoPlugin implements PlatformPlugin {
                            @Override
                            public List<EndpointFamily> endpoints(PlatformContext ctx) {
                                return List.of(new EndpointFamily() {
                                    @Override public String id() { return "echo"; }
                                    @Override public String basePath() { return "/v1/echo"; }
                                    @Override public void routes(Routes routes) {
                                        routes.post("/v1/echo", "echo", exchange -> {
                                            var body = exchange.body();
                                            long n = ctx.database().write(sql -> {
                                                sql.update("INSERT INTO echo_log (body) VALUES (?)", body.toString());
                                                return sql.queryOne("SELECT COUNT(*) FROM echo_log", r -> r.getLong(1)).orElseThrow();
                                            });
                                            exchange.respond(200, ctx.json().createObjectNode().put("count", n).set("echo", body));
                                        });
                                    }
                                });
                            }
                        }
                        """)
                .services("com.example.echo.EchoPlugin")
                .resource("db/migration/echo/sqlite/V1__echo_log.sql",
                        "CREATE TABLE echo_log (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);\n")
                .writeTo(dir);
    }

    /** {@code broken}: throws in {@code start}. */
    static Path broken(Path dir) {
        return TestPluginJars.plugin("broken")
                .source("com.example.broken.BrokenPlugin", """
                        package com.example.broken;

                        public final class BrokenPlugin implements dev.caduceus.spi.PlatformPlugin {
                            @Override
                            public void start(dev.caduceus.spi.PlatformContext ctx) {
                                throw new IllegalStateException("cannot reach the thing it needs");
                            }
                        }
                        """)
                .services("com.example.broken.BrokenPlugin")
                .writeTo(dir);
    }

    /**
     * {@code lifecycle}: {@code GET /v1/slow} writes {@code entered} into the plugin's data directory,
     * then answers once a test creates {@code release} there (or after 30 s); {@code stop()} writes
     * {@code stopped} there, so a test can see the shutdown order.
     */
    static Path lifecycle(Path dir) {
        return TestPluginJars.plugin("lifecycle")
                .source("com.example.lifecycle.LifecyclePlugin", """
                        package com.example.lifecycle;

                        import dev.caduceus.spi.PlatformContext;
                        import dev.caduceus.spi.PlatformPlugin;
                        import dev.caduceus.spi.http.EndpointFamily;
                        import dev.caduceus.spi.http.Routes;
                        import java.nio.file.Files;
                        import java.nio.file.Path;
                        import java.nio.file.StandardWatchEventKinds;
                        import java.util.List;
                        import java.util.concurrent.TimeUnit;

                        public final class LifecyclePlugin implements PlatformPlugin {
                            private Path dataDir;

                            @Override
                            public void start(PlatformContext ctx) throws Exception {
                                dataDir = ctx.plugin().dataDir();
                                Files.createDirectories(dataDir);
                            }

                            @Override
                            public List<EndpointFamily> endpoints(PlatformContext ctx) {
                                return List.of(new EndpointFamily() {
                                    @Override public String id() { return "slow"; }
                                    @Override public String basePath() { return "/v1/slow"; }
                                    @Override public void routes(Routes routes) {
                                        routes.get("/v1/slow", null, exchange -> {
                                            awaitRelease();
                                            exchange.respond(200, ctx.json().createObjectNode().put("slow", true));
                                        });
                                    }
                                });
                            }

                            private void awaitRelease() throws Exception {
                                var release = dataDir.resolve("release");
                                try (var watch = dataDir.getFileSystem().newWatchService()) {
                                    dataDir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
                                    Files.writeString(dataDir.resolve("entered"), "entered");
                                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                                    while (!Files.exists(release) && System.nanoTime() < end) {
                                        var key = watch.poll(100, TimeUnit.MILLISECONDS);
                                        if (key != null) {
                                            key.pollEvents();
                                            key.reset();
                                        }
                                    }
                                }
                            }

                            @Override
                            public void stop() throws Exception {
                                Files.writeString(dataDir.resolve("stopped"), "stopped");
                            }
                        }
                        """)
                .services("com.example.lifecycle.LifecyclePlugin")
                .writeTo(dir);
    }

    /**
     * {@code calc}: one tool, {@code add}, that adds two integers, the toolset {@code calc} that holds
     * it (a third-party tool plugin; enable it with {@code agent.toolsets}), and the batch
     * distribution {@code calc_heavy} (calc always, terminal half the time), offered as a
     * {@code BatchCatalog} service.
     */
    static Path calc(Path dir) {
        return TestPluginJars.plugin("calc")
                .source("com.example.calc.CalcPlugin", """
                        package com.example.calc;

                        import com.fasterxml.jackson.databind.node.JsonNodeFactory;
                        import dev.caduceus.spi.PlatformContext;
                        import dev.caduceus.spi.PlatformPlugin;
                        import dev.caduceus.spi.tool.Tool;
                        import dev.caduceus.spi.tool.ToolCall;
                        import dev.caduceus.spi.tool.ToolContext;
                        import dev.caduceus.spi.tool.ToolResult;
                        import dev.caduceus.spi.tool.ToolRisk;
                        import dev.caduceus.spi.tool.ToolSpec;
                        import dev.caduceus.spi.tool.ToolsetSpec;
                        import dev.caduceus.support.services.BatchCatalog;
                        import java.util.LinkedHashMap;
                        import java.util.List;

                        public final class CalcPlugin implements PlatformPlugin {
                            @Override
                            public List<Object> services(PlatformContext ctx) {
                                var percent = new LinkedHashMap<String, Integer>();
                                percent.put("calc", 100);
                                percent.put("terminal", 50);
                                var heavy = new BatchCatalog.Distribution("calc_heavy", "Arithmetic first", percent);
                                return List.of(new BatchCatalog() {
                                    @Override public List<BatchCatalog.Distribution> distributions() { return List.of(heavy); }
                                    @Override public List<BatchCatalog.ToolStatsSchema> toolStatsSchemas() { return List.of(); }
                                });
                            }

                            @Override
                            public List<ToolsetSpec> toolsets(PlatformContext ctx) {
                                return List.of(new ToolsetSpec("calc", "Arithmetic", List.of("add"), List.of()));
                            }

                            @Override
                            public List<Tool> tools(PlatformContext ctx) {
                                var params = JsonNodeFactory.instance.objectNode().put("type", "object");
                                params.putObject("properties").putObject("a").put("type", "integer");
                                params.with("properties").putObject("b").put("type", "integer");
                                params.putArray("required").add("a").add("b");
                                var spec = new ToolSpec("add", "Add two integers", params, "calc", List.of(),
                                        ToolRisk.READ_ONLY, 1000, true, false, "🧮");
                                return List.of(new Tool() {
                                    @Override public ToolSpec spec() { return spec; }
                                    @Override public ToolResult call(ToolCall call, ToolContext c) {
                                        var a = call.arguments().path("a").asLong();
                                        var b = call.arguments().path("b").asLong();
                                        return new ToolResult.Ok("{\\"sum\\": " + (a + b) + "}");
                                    }
                                });
                            }
                        }
                        """)
                .services("com.example.calc.CalcPlugin")
                // its own copy of the support library's service type, as a plugin built on it bundles
                .bundleCopyOf(dev.caduceus.support.services.BatchCatalog.class)
                .bundleCopyOf(dev.caduceus.support.services.BatchCatalog.Distribution.class)
                .bundleCopyOf(dev.caduceus.support.services.BatchCatalog.ToolStatsSchema.class)
                .writeTo(dir);
    }
}
