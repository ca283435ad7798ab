package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.testkit.FakePlatformContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalKeysTest {

    @Test
    void everyDeclaredKeyIsUnderToolsTerminalOrToolsProcessOrIsApprovalsMode() {
        var declared = new TerminalPlugin().settings();
        assertEquals(TerminalKeys.ALL, declared);
        declared.forEach(s -> assertTrue(s.key().startsWith("tools.terminal.") || s.key().startsWith("tools.process.") || s.key().equals("approvals.mode"),
                s.key()));
    }

    @Test
    void unsetKeysReadAsTheDeclaredDefaults() {
        var tools = FakePlatformContext.builder("tool-terminal").toolsConfig(Map.of()).build().section("tools");
        var read = TerminalSettings.from(tools, "manual");
        assertEquals(TerminalKeys.BACKEND.defaultValue(), read.sandbox().backend());
        assertEquals(TerminalKeys.SHELL.defaultValue(), read.shell());
        assertEquals(TerminalKeys.TIMEOUT.defaultValue(), Integer.toString(read.timeoutSeconds()));
        assertEquals(TerminalKeys.MAX_FOREGROUND_TIMEOUT.defaultValue(), Integer.toString(read.maxForegroundTimeout()));
        assertEquals(TerminalKeys.MAX_OUTPUT_CHARS.defaultValue(), Integer.toString(read.maxOutputChars()));
        assertEquals(TerminalKeys.MAX_PER_SESSION.defaultValue(), Integer.toString(read.maxPerSession()));
        assertEquals(TerminalKeys.MAX_LIFETIME.defaultValue(), Long.toString(read.maxLifetime().toSeconds()));
        assertEquals(TerminalKeys.ENV_DENYLIST.defaultValue(), "[" + String.join(", ", read.envDenylist()) + "]");
    }
}
