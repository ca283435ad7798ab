package dev.caduceus.plugin.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.plugin.runs.TerminalRuns.Session;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The terminal's approvals answered by a person, in real runs ({@link TerminalRuns}): once, for the
 * session, always (stored, shared by every node, surviving a restart), denied, timed out; hardline
 * commands never offered. On SQLite and on PostgreSQL. Moved from tool-terminal's ApprovalTest, where
 * only direct calls (no approval channel) can run: that module cannot depend on this one.
 */
@Timeout(90)
@ParameterizedClass
@EnumSource(Dialect.class)
class TerminalApprovalTest {
    static final String DENIED = "{\"output\": \"\", \"exit_code\": -1, \"error\": \"Command denied by the user: recursive delete\", "
            + "\"status\": \"blocked\"}";
    /** Hardline by pattern, yet harmless if it ever ran: rm stops at the unknown option. */
    static final String HARDLINE = "rm -rf --no-such-option /";
    @TempDir Path tmp;
    @Parameter Dialect dialect;

    @Test
    void approvedOnceRunsAndAsksAgainNextTime() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            var ctx = new Session("s1", ApprovalChoice.ONCE);
            h.run(ctx, "mkdir -p a b");
            var r = h.run(ctx, "rm -r a");
            assertEquals(0, r.path("exit_code").asInt());
            assertEquals("approved once by the user (rm-recursive)", r.path("approval").asText());
            assertFalse(Files.exists(h.workspace.resolve("a")));
            var request = ctx.approvals().getFirst();
            assertEquals("rm -r a", request.path("command").asText());
            assertEquals("rm-recursive", request.path("pattern_key").asText());
            assertEquals("recursive delete", request.path("description").asText());
            h.run(ctx, "rm -r b");
            assertEquals(2, ctx.approvals().size());
        }
    }

    @Test
    void sessionApprovalCoversTheSessionOnly() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            var s1 = new Session("s1", ApprovalChoice.SESSION);
            h.run(s1, "mkdir -p a b c");
            h.run(s1, "rm -r a");
            var second = h.run(s1, "rm -r b");
            assertEquals(1, s1.approvals().size());
            assertFalse(second.has("approval"));
            var s2 = new Session("s2", ApprovalChoice.DENY);
            assertEquals(DENIED, h.runRaw(s2, "rm -r c"), "another session is asked again");
            assertEquals(1, s2.approvals().size());
        }
    }

    @Test
    void deniedCommandsDoNotRun() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            var ctx = new Session("s1", ApprovalChoice.DENY);
            h.run(ctx, "mkdir -p keep");
            assertEquals(DENIED, h.runRaw(ctx, "rm -r keep"));
            assertTrue(Files.isDirectory(h.workspace.resolve("keep")));
        }
    }

    @Test
    void hardlineIsBlockedInEveryModeAndNeverOffered() throws Exception {
        for (var mode : new String[] {"off", "manual"}) {
            try (var h = TerminalRuns.start(tmp.resolve(mode), dialect, mode)) {
                var ctx = new Session("s1", ApprovalChoice.ALWAYS);
                var r = h.run(ctx, HARDLINE);
                assertEquals("blocked", r.path("status").asText(), mode);
                assertEquals(-1, r.path("exit_code").asInt());
                assertTrue(r.path("error").asText().startsWith("Command blocked: recursive delete of the root filesystem"));
                assertTrue(ctx.approvals().isEmpty());
            }
        }
    }

    @Test
    void alwaysAllowsAPermanentPatternInEverySession() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            var s1 = new Session("s1", ApprovalChoice.ALWAYS);
            var r = h.run(s1, "rm -rf nothing-here-1");
            assertEquals("approved permanently by the user (rm-recursive)", r.path("approval").asText());
            var s2 = new Session("s2", ApprovalChoice.DENY);
            assertFalse(h.run(s2, "rm -rf nothing-here-2").has("status"), "always covers every session");
            assertTrue(s2.approvals().isEmpty());
        }
    }

    @Test
    void alwaysIsStoredAndSurvivesARestart() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            h.run(new Session("s1", ApprovalChoice.ALWAYS), "rm -rf nothing-here-1");
            h.host.close(); // the restart below is on the same database
            try (var restarted = TerminalRuns.sameDatabase(tmp.resolve("restarted"), h)) {
                var s2 = new Session("s2", ApprovalChoice.DENY);
                assertFalse(restarted.run(s2, "rm -rf nothing-here-2").has("status"), "the stored pattern still applies");
                assertTrue(s2.approvals().isEmpty());
            }
        }
    }

    @Test
    void alwaysOnOneNodeCoversTheOtherNodesAlreadyRunning() throws Exception {
        try (var a = TerminalRuns.start(tmp.resolve("a"), dialect, "manual"); var b = TerminalRuns.sameDatabase(tmp.resolve("b"), a)) {
            var beforeB = new Session("b1", ApprovalChoice.DENY);
            assertEquals("Command denied by the user: recursive delete",
                    b.run(beforeB, "rm -rf nothing-here-0").path("error").asText(), "nothing allowed yet");
            var onA = new Session("a1", ApprovalChoice.ALWAYS);
            assertEquals("approved permanently by the user (rm-recursive)",
                    a.run(onA, "rm -rf nothing-here-1").path("approval").asText());
            var onB = new Session("b2", ApprovalChoice.DENY);
            assertFalse(b.run(onB, "rm -rf nothing-here-2").has("status"), "the other node sees the stored pattern");
            assertTrue(onB.approvals().isEmpty(), "and does not ask");
            var againOnB = new Session("b3", ApprovalChoice.ALWAYS); // stored already: nothing to add
            assertFalse(b.run(againOnB, "rm -rf nothing-here-3").has("status"));
            assertEquals(1, a.count("approval_allowlist"));
        }
    }

    @Test
    void aTimedOutApprovalBlocksTheCommandAndSaysSo() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual", "CADUCEUS__APPROVALS__TIMEOUT", "1")) {
            var r = h.run(new Session("s1", ApprovalChoice.TIMED_OUT), "rm -rf nothing-here");
            assertEquals("blocked", r.path("status").asText());
            assertEquals("Approval timed out: recursive delete", r.path("error").asText());
        }
    }

    @Test
    void alwaysForANonPermanentPatternLastsForTheSessionOnly() throws Exception {
        try (var h = TerminalRuns.start(tmp, dialect, "manual")) {
            var s1 = new Session("s1", ApprovalChoice.ALWAYS);
            Files.createDirectories(h.home);
            var r = h.run(s1, "echo x > " + h.home + "/note");
            assertEquals("x\n", Files.readString(h.home.resolve("note")));
            assertTrue(r.path("approval").asText().startsWith("approved for this session by the user (credential-write"));
            var s2 = new Session("s2", ApprovalChoice.DENY);
            assertEquals("Command denied by the user: write to credential or Caduceus state files",
                    h.run(s2, "echo y > " + h.home + "/note").path("error").asText());
        }
    }
}
