package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dangerous commands through the terminal tool called directly (no approval channel): hardline
 * refusals, blocking in manual mode, mode off; on SQLite and on PostgreSQL. Approvals answered by a
 * person need a run with an approval channel: endpoint-runs' {@code TerminalApprovalTest} (this module
 * cannot depend on endpoint-runs, whose tests depend on it).
 */
@Timeout(60)
@ParameterizedClass
@EnumSource(Dialect.class)
class ApprovalTest {
    static final String BLOCKED = "{\"output\": \"\", \"exit_code\": -1, \"error\": \"Command blocked: recursive delete "
            + "(rm-recursive). It needs human approval, which is not available here; use a safer alternative.\", "
            + "\"status\": \"blocked\"}";
    /** Hardline by pattern, yet harmless if it ever ran: rm stops at the unknown option. */
    static final String HARDLINE = "rm -rf --no-such-option /";
    @TempDir Path tmp;
    @Parameter Dialect dialect;

    @Test
    void blockedWithoutAChannelInManualMode() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var ctx = h.session("s1");
            h.run(ctx, "mkdir -p victim");
            assertEquals(BLOCKED, Harness.content(h.call(h.terminal, ctx, "{\"command\":\"rm -r victim\"}")));
            assertTrue(Files.isDirectory(h.workspace.resolve("victim")));
        }
    }




    @Test
    void modeOffRunsFlaggedCommandsWithoutAsking() throws Exception {
        try (var h = new Harness(tmp, "off", dialect)) {
            var ctx = h.session("s1");
            h.run(ctx, "mkdir -p gone");
            var r = h.run(ctx, "rm -r gone");
            assertEquals(0, r.path("exit_code").asInt());
            assertFalse(r.has("status"));
            assertFalse(Files.exists(h.workspace.resolve("gone")));
            assertEquals("hi", h.run(ctx, "bash -c 'echo hi'").path("output").asText());
        }
    }







    @Test
    void hardlineIsBlockedInEveryMode() throws Exception {
        for (var mode : new String[] {"off", "manual"}) {
            try (var h = new Harness(tmp.resolve(mode), mode, dialect)) {
                var r = h.run(h.session("s1"), HARDLINE);
                assertEquals("blocked", r.path("status").asText(), mode);
                assertEquals(-1, r.path("exit_code").asInt());
                assertTrue(r.path("error").asText().startsWith("Command blocked: recursive delete of the root filesystem"));
            }
        }
    }
}
