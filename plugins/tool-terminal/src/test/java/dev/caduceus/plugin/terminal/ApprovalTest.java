package dev.caduceus.plugin.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dangerous commands through the terminal tool: hardline refusals, approvals, allowlists; on SQLite and on
 * PostgreSQL, where the stored allowlist is shared by every node.
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
            assertTrue(ctx.approvals.isEmpty());
        }
    }

    @Test
    void approvedOnceRunsAndAsksAgainNextTime() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var ctx = h.session("s1", true, ApprovalChoice.ONCE);
            h.run(ctx, "mkdir -p a b");
            var r = h.run(ctx, "rm -r a");
            assertEquals(0, r.path("exit_code").asInt());
            assertEquals("approved once by the user (rm-recursive)", r.path("approval").asText());
            assertFalse(Files.exists(h.workspace.resolve("a")));
            var request = ctx.approvals.getFirst();
            assertEquals("rm -r a", request.command());
            assertEquals("rm-recursive", request.pattern());
            assertEquals("recursive delete", request.description());
            h.run(ctx, "rm -r b");
            assertEquals(2, ctx.approvals.size());
        }
    }

    @Test
    void sessionApprovalCoversTheSessionOnly() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var s1 = h.session("s1", true, ApprovalChoice.SESSION);
            h.run(s1, "mkdir -p a b c");
            h.run(s1, "rm -r a");
            var second = h.run(s1, "rm -r b");
            assertEquals(1, s1.approvals.size());
            assertFalse(second.has("approval"));
            assertEquals(BLOCKED, Harness.content(h.call(h.terminal, h.session("s2"), "{\"command\":\"rm -r c\"}")));
        }
    }

    @Test
    void deniedCommandsDoNotRun() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var ctx = h.session("s1", true, ApprovalChoice.DENY);
            h.run(ctx, "mkdir -p keep");
            assertEquals("{\"output\": \"\", \"exit_code\": -1, \"error\": \"Command denied by the user: recursive delete\", "
                    + "\"status\": \"blocked\"}", Harness.content(h.call(h.terminal, ctx, "{\"command\":\"rm -r keep\"}")));
            assertTrue(Files.isDirectory(h.workspace.resolve("keep")));
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
    void hardlineIsBlockedInEveryModeAndNeverOffered() throws Exception {
        for (var mode : new String[] {"off", "manual"}) {
            try (var h = new Harness(tmp.resolve(mode), mode, dialect)) {
                var ctx = h.session("s1", true, ApprovalChoice.ALWAYS);
                var r = h.run(ctx, HARDLINE);
                assertEquals("blocked", r.path("status").asText(), mode);
                assertEquals(-1, r.path("exit_code").asInt());
                assertTrue(r.path("error").asText().startsWith("Command blocked: recursive delete of the root filesystem"));
                assertTrue(ctx.approvals.isEmpty());
            }
        }
    }

    @Test
    void alwaysAllowsAPermanentPatternInEverySession() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var s1 = h.session("s1", true, ApprovalChoice.ALWAYS);
            var r = h.run(s1, "rm -rf nothing-here-1");
            assertEquals("approved permanently by the user (rm-recursive)", r.path("approval").asText());
            var s2 = h.session("s2", true, ApprovalChoice.DENY);
            assertFalse(h.run(s2, "rm -rf nothing-here-2").has("status"), "always covers every session");
            assertTrue(s2.approvals.isEmpty());
        }
    }

    @Test
    void alwaysIsStoredAndSurvivesARestart() throws Exception {
        try (var db = TestDatabase.open(tmp, "tool-terminal", dialect)) {
            try (var h = new Harness(tmp, db)) {
                h.run(h.session("s1", true, ApprovalChoice.ALWAYS), "rm -rf nothing-here-1");
            }
            try (var reopened = db.node(); var restarted = new Harness(tmp, reopened)) {
                var s2 = restarted.session("s2", true, ApprovalChoice.DENY);
                assertFalse(restarted.run(s2, "rm -rf nothing-here-2").has("status"), "the stored pattern still applies");
                assertTrue(s2.approvals.isEmpty());
            }
        }
    }

    @Test
    void alwaysOnOneNodeCoversTheOtherNodesAlreadyRunning() throws Exception {
        try (var db = TestDatabase.open(tmp, "tool-terminal", dialect); var second = db.node();
             var a = new Harness(tmp.resolve("a"), db); var b = new Harness(tmp.resolve("b"), second)) {
            var beforeB = b.session("b1", true, ApprovalChoice.DENY);
            assertEquals("Command denied by the user: recursive delete",
                    b.run(beforeB, "rm -rf nothing-here-0").path("error").asText(), "nothing allowed yet");
            var onA = a.session("a1", true, ApprovalChoice.ALWAYS);
            assertEquals("approved permanently by the user (rm-recursive)",
                    a.run(onA, "rm -rf nothing-here-1").path("approval").asText());
            var onB = b.session("b2", true, ApprovalChoice.DENY);
            assertFalse(b.run(onB, "rm -rf nothing-here-2").has("status"), "the other node sees the stored pattern");
            assertTrue(onB.approvals.isEmpty(), "and does not ask");
            var againOnB = b.session("b3", true, ApprovalChoice.ALWAYS); // stored already: nothing to add
            assertFalse(b.run(againOnB, "rm -rf nothing-here-3").has("status"));
            assertEquals(1, db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM approval_allowlist", r -> r.getLong(1)))
                    .orElseThrow());
        }
    }

    @Test
    void aTimedOutApprovalBlocksTheCommandAndSaysSo() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var r = h.run(h.session("s1", true, ApprovalChoice.TIMED_OUT), "rm -rf nothing-here");
            assertEquals("blocked", r.path("status").asText());
            assertEquals("Approval timed out: recursive delete", r.path("error").asText());
        }
    }

    @Test
    void alwaysForANonPermanentPatternLastsForTheSessionOnly() throws Exception {
        try (var h = new Harness(tmp, dialect)) {
            var s1 = h.session("s1", true, ApprovalChoice.ALWAYS);
            Files.createDirectories(h.home);
            var r = h.run(s1, "echo x > " + h.home + "/note");
            assertEquals("x\n", Files.readString(h.home.resolve("note")));
            assertTrue(r.path("approval").asText().startsWith("approved for this session by the user (credential-write"));
            var s2 = h.session("s2", true, ApprovalChoice.DENY);
            assertEquals("Command denied by the user: write to credential or Caduceus state files",
                    h.run(s2, "echo y > " + h.home + "/note").path("error").asText());
        }
    }
}
