package dev.caduceus.platform.host.plugin;

import static dev.caduceus.platform.host.plugin.TestPlugins.boot;
import static dev.caduceus.platform.host.plugin.TestPlugins.events;
import static dev.caduceus.platform.host.plugin.TestPlugins.jar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginSelectionTest {
    @TempDir Path base;
    private Path plugins;

    @BeforeEach
    void jars() {
        plugins = base.resolve("plugins");
        // Each plugin's static initializer logs, so a disabled plugin whose code ran would show up.
        for (var id : List.of("chat", "jobs", "web"))
            jar(id, "", "static { System.setProperty(\"caduceus.test.loaded." + id + "\", \"" + base + "\"); }")
                    .writeTo(plugins);
    }

    private BootedPlugins boot(List<String> enabled, List<String> disabled) {
        try (var host = PluginHost.load(new PluginHost.Options(List.of(plugins), enabled, disabled, true, "0.1.0"))) {
            return TestPlugins.boot(host, base);
        }
    }

    private static String reason(BootedPlugins booted, String id) {
        var report = booted.plugins().stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
        assertEquals(Deployment.State.DISABLED, report.state());
        return report.reason();
    }

    private void assertCodeNeverRan(String id) {
        assertTrue(!base.toString().equals(System.getProperty("caduceus.test.loaded." + id)),
                id + "'s code ran although it is disabled");
        assertTrue(events(base).stream().noneMatch(e -> e.startsWith("start:" + id)));
    }

    @Test
    void configDisabledListSwitchesAPluginOff() {
        var booted = boot(List.of(), List.of("jobs"));
        assertEquals(List.of("chat", "web"), booted.started().stream().map(StartedPlugin::id).toList());
        assertEquals("disabled by plugins.disabled in config", reason(booted, "jobs"));
        assertCodeNeverRan("jobs");
    }

    @Test
    void configEnabledListIsAnAllowList() {
        var booted = boot(List.of("web"), List.of());
        assertEquals(List.of("web"), booted.started().stream().map(StartedPlugin::id).toList());
        assertEquals("not in plugins.enabled in config", reason(booted, "chat"));
        assertCodeNeverRan("chat");
    }

    @Test
    void disabledTxtSwitchesAPluginOff() throws Exception {
        Files.writeString(plugins.resolve("disabled.txt"), "# off for now\nweb\n");
        var booted = boot(List.of(), List.of());
        assertEquals("listed in " + plugins.resolve("disabled.txt"), reason(booted, "web"));
        assertCodeNeverRan("web");
        assertEquals(2, booted.started().size());
    }

    @Test
    void enabledTxtIsAnAllowListOnceNonEmpty() throws Exception {
        Files.writeString(plugins.resolve("enabled.txt"), "chat\n");
        var booted = boot(List.of(), List.of());
        assertEquals(List.of("chat"), booted.started().stream().map(StartedPlugin::id).toList());
        assertEquals("not in " + plugins.resolve("enabled.txt"), reason(booted, "jobs"));
        assertCodeNeverRan("jobs");
    }

    @Test
    void unknownIdInConfigDisabledListIsAnError() {
        var e = assertThrows(PluginBootException.class, () -> boot(List.of(), List.of("chta")));
        assertTrue(e.getMessage().contains("plugins.disabled") && e.getMessage().contains("'chta'"), e.getMessage());
    }

    @Test
    void unknownIdInEnabledTxtIsAnError() throws Exception {
        Files.writeString(plugins.resolve("enabled.txt"), "chat\nmissing\n");
        var e = assertThrows(PluginBootException.class, () -> boot(List.of(), List.of()));
        assertTrue(e.getMessage().contains("enabled.txt") && e.getMessage().contains("'missing'"), e.getMessage());
    }

    @Test
    void eachFolderFilesApplyToItsOwnJars() throws Exception {
        var extra = base.resolve("extra");
        jar("memory").writeTo(extra);
        Files.writeString(extra.resolve("enabled.txt"), "memory\n");
        try (var host = PluginHost.load(new PluginHost.Options(List.of(plugins, extra), List.of(), List.of(), true, "0.1.0"))) {
            assertEquals(4, TestPlugins.boot(host, base).started().size());
        }
    }
}
