package dev.caduceus.platform.host.plugin;

import static dev.caduceus.platform.host.plugin.TestPlugins.boot;
import static dev.caduceus.platform.host.plugin.TestPlugins.events;
import static dev.caduceus.platform.host.plugin.TestPlugins.jar;
import static dev.caduceus.platform.host.plugin.TestPlugins.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.PlatformPlugin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginHostTest {
    @TempDir Path base;

    private Path plugins() {
        return base.resolve("plugins");
    }

    @Test
    void startsPluginAndCallsItWithItsOwnContextClassLoader() throws Exception {
        jar("hello", "", """
                @Override public List<Tool> tools(PlatformContext c) { return List.of(tool("hello", "tccl=" + tccl())); }
                """).resource("db/migration/hello/sqlite/V1__init.sql", "create table hello(id integer);")
                .writeTo(plugins());
        var hooked = new ArrayList<String>();
        try (var host = PluginHost.load(options(plugins(), true))) {
            var booted = host.start(view -> {
                try (var jar = new JarFile(view.jar().toFile())) {
                    hooked.add(view.id() + " " + (jar.getEntry("db/migration/hello/sqlite/V1__init.sql") != null)
                            + " " + (Thread.currentThread().getContextClassLoader() == view.classLoader()));
                }
            }, view -> TestPlugins.context(base, view));

            assertEquals(List.of("hello true true"), hooked);
            assertEquals(List.of("start:hello tccl=true"), events(base));
            var started = booted.started().getFirst();
            assertEquals("hello", started.id());
            assertEquals("1.0.0", started.version());
            assertEquals(List.of("tools"), started.kinds());
            assertTrue(started.classLoader() instanceof SpiFirstClassLoader);
            assertSame(started.classLoader(), started.plugin().getClass().getClassLoader());
            var tool = booted.contributions().tools().getFirst();
            assertEquals("tccl=true", tool.value().spec().description());
            assertEquals("hello", tool.pluginId());
            assertEquals(Deployment.State.STARTED, booted.plugins().getFirst().state());
        }
        assertEquals(List.of("start:hello tccl=true", "stop:hello tccl=true"), events(base));
    }

    @Test
    void spiClassesComeFromTheHostEvenWhenTheJarBundlesThem() throws Exception {
        var jar = jar("bundler").bundleCopyOf(PlatformPlugin.class).writeTo(plugins());
        try (var file = new JarFile(jar.toFile())) {
            assertTrue(file.getEntry("dev/caduceus/spi/PlatformPlugin.class") != null, "the jar really bundles the SPI");
        }
        try (var host = PluginHost.load(options(plugins(), true))) {
            var started = boot(host, base).started().getFirst();
            assertSame(PlatformPlugin.class, started.classLoader().loadClass(PlatformPlugin.class.getName()));
            assertTrue(PlatformPlugin.class.isInstance(started.plugin()));
            assertSame(com.fasterxml.jackson.databind.JsonNode.class,
                    started.classLoader().loadClass("com.fasterxml.jackson.databind.JsonNode"));
        }
    }

    @Test
    void duplicatePluginIdFailsNamingBothFiles() {
        jar("twin").fileName("twin-a.jar").writeTo(plugins());
        jar("twin").fileName("twin-b.jar").writeTo(plugins());
        var e = assertThrows(PluginBootException.class, () -> PluginHost.load(options(plugins(), false)));
        assertTrue(e.getMessage().contains("twin-a.jar") && e.getMessage().contains("twin-b.jar"), e.getMessage());
        assertTrue(e.getMessage().contains("'twin'"), e.getMessage());
    }

    @Test
    void jarWithoutServicesFileFailsNamingTheJar() {
        TestPluginJars.plugin("silent").source("test.silent.Plugin",
                TestPlugins.source("test.silent", "silent", "", "")).writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), true))) {
            var e = assertThrows(PluginBootException.class, () -> boot(host, base));
            assertTrue(e.getMessage().contains("'silent' (silent.jar)"), e.getMessage());
            assertTrue(e.getMessage().contains("has no PlatformPlugin"), e.getMessage());
        }
    }

    @Test
    void entryPointsFoundAheadReportTheirFailureAtThatPluginsTurn() {
        // "silent" (no PlatformPlugin) sorts between the two good ones; found ahead, it still fails
        // only at its turn: in lenient mode the others start, in order, as without findEntryPoints.
        jar("alpha").writeTo(plugins());
        TestPluginJars.plugin("silent").source("test.silent.Plugin",
                TestPlugins.source("test.silent", "silent", "", "")).writeTo(plugins());
        jar("zulu").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), false))) {
            host.findEntryPoints();
            assertEquals(List.of(), events(base), "finding entry points starts nothing");
            var booted = boot(host, base);
            assertEquals(List.of("alpha", "zulu"), booted.started().stream().map(StartedPlugin::id).toList());
            var failed = booted.failed().getFirst();
            assertEquals("silent", failed.id());
            assertTrue(failed.reason().contains("has no PlatformPlugin"), failed.reason());
        }
        assertEquals(List.of("start:alpha tccl=true", "start:zulu tccl=true", "stop:zulu tccl=true",
                "stop:alpha tccl=true"), events(base));
    }

    @Test
    void jarWithTwoProvidersFailsNamingTheJar() {
        jar("twice").source("test.twice.Other", TestPlugins.source("test.twice", "twice", "", "")
                        .replace("public class Plugin", "public class Other"))
                .services("test.twice.Other").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), true))) {
            var e = assertThrows(PluginBootException.class, () -> boot(host, base));
            assertTrue(e.getMessage().contains("'twice' (twice.jar) has 2 PlatformPlugin classes"), e.getMessage());
        }
    }

    @Test
    void jarWithoutPluginIdFailsNamingTheJar() {
        TestPluginJars.plugin(null).fileName("anonymous.jar").writeTo(plugins());
        var e = assertThrows(PluginBootException.class, () -> PluginHost.load(options(plugins(), true)));
        assertTrue(e.getMessage().contains("anonymous.jar") && e.getMessage().contains("no Plugin-Id"), e.getMessage());
    }

    @Test
    void startFailureStopsTheBootInStrictModeNamingPluginAndJar() {
        jar("good").writeTo(plugins());
        jar("broken", "throw new IllegalStateException(\"no upstream configured\");", "").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), true))) {
            var e = assertThrows(PluginBootException.class, () -> boot(host, base));
            assertTrue(e.getMessage().contains("'broken' (broken.jar) failed to start"), e.getMessage());
            assertTrue(e.getMessage().contains("no upstream configured"), e.getMessage());
        }
        // broken starts before good (by id); nothing else started, and what started was stopped again.
        assertEquals(List.of("start:broken tccl=true"), events(base));
    }

    @Test
    void startFailureDropsOnlyThatPluginInLenientMode() {
        jar("good").writeTo(plugins());
        jar("broken", "throw new IllegalStateException(\"no upstream configured\");", "").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), false))) {
            var booted = boot(host, base);
            assertEquals(List.of("good"), booted.started().stream().map(StartedPlugin::id).toList());
            var failed = booted.failed().getFirst();
            assertEquals("broken", failed.id());
            assertTrue(failed.reason().contains("failed to start") && failed.reason().contains("no upstream configured"),
                    failed.reason());
        }
        // broken's start threw, so it never started and is not stopped.
        assertEquals(List.of("start:broken tccl=true", "start:good tccl=true", "stop:good tccl=true"), events(base));
    }

    @Test
    void dependenciesStartFirstAndStopLast() {
        // Alphabetically "alpha" would come first; its dependency on "zeta" must win.
        jar("alpha").dependencies("zeta").writeTo(plugins());
        jar("zeta").writeTo(plugins());
        jar("mid").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), true))) {
            var booted = boot(host, base);
            assertEquals(List.of("mid", "zeta", "alpha"), booted.started().stream().map(StartedPlugin::id).toList());
            host.stopAll();
            host.stopAll();
        }
        assertEquals(List.of("start:mid tccl=true", "start:zeta tccl=true", "start:alpha tccl=true",
                "stop:alpha tccl=true", "stop:zeta tccl=true", "stop:mid tccl=true"), events(base));
    }

    @Test
    void missingRequiredDependencyFailsNamingIt() {
        jar("needy").dependencies("absent").writeTo(plugins());
        var e = assertThrows(PluginBootException.class, () -> PluginHost.load(options(plugins(), true)));
        assertTrue(e.getMessage().contains("'needy' (needy.jar) depends on plugin 'absent'"), e.getMessage());
    }

    @Test
    void pluginRequiringANewerPlatformFails() {
        jar("future").requires(">=9.0.0").writeTo(plugins());
        var e = assertThrows(PluginBootException.class, () -> PluginHost.load(options(plugins(), true)));
        assertTrue(e.getMessage().contains("'future' (future.jar)") && e.getMessage().contains(">=9.0.0"), e.getMessage());
    }

    @Test
    void pf4jFilesAreNeverRewritten() throws Exception {
        jar("one").writeTo(plugins());
        Files.writeString(plugins().resolve("disabled.txt"), "# nothing\n");
        try (var host = PluginHost.load(options(plugins(), true))) {
            boot(host, base);
        }
        assertEquals("# nothing\n", Files.readString(plugins().resolve("disabled.txt")));
        assertTrue(Files.notExists(plugins().resolve("enabled.txt")));
    }

    @Test
    void contributionFailureStopsThatPluginInLenientMode() {
        jar("flaky", "", "@Override public List<Tool> tools(PlatformContext c) { throw new IllegalStateException(\"boom\"); }")
                .writeTo(plugins());
        jar("steady").writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), false))) {
            var booted = boot(host, base);
            assertEquals(List.of("steady"), booted.started().stream().map(StartedPlugin::id).toList());
            assertTrue(booted.failed().getFirst().reason().contains("failed in tools()"), booted.failed().toString());
            assertTrue(booted.contributions().tools().isEmpty());
        }
        assertEquals(List.of("start:flaky tccl=true", "stop:flaky tccl=true", "start:steady tccl=true",
                "stop:steady tccl=true"), events(base));
    }

    @Test
    void aConfigurationErrorInAContributionIsTheOperatorsEvenInLenientMode() {
        jar("picky", "", "@Override public List<Tool> tools(PlatformContext c) { "
                + "throw new dev.caduceus.spi.config.ConfigException(\"picky.level\", \"picky.level: 'x' is not a number\"); }")
                .writeTo(plugins());
        try (var host = PluginHost.load(options(plugins(), false))) {
            var e = assertThrows(dev.caduceus.spi.config.ConfigException.class, () -> boot(host, base));
            assertEquals("picky.level", e.key(), "the boot stops naming the key, not as a failed plugin");
        }
        assertEquals(List.of("start:picky tccl=true", "stop:picky tccl=true"), events(base), "the plugin is stopped again");
    }

    @Test
    void pluginCallsRestoreTheContextClassLoaderEvenWhenTheCallThrows() {
        var thread = Thread.currentThread();
        var before = thread.getContextClassLoader();
        var other = new java.net.URLClassLoader(new java.net.URL[0], null);
        assertThrows(IllegalStateException.class, () -> PluginCalls.run(other, () -> {
            assertSame(other, thread.getContextClassLoader());
            throw new IllegalStateException("boom");
        }));
        assertSame(before, thread.getContextClassLoader());
    }
}
