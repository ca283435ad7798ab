package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.platform.host.auth.Budget;
import dev.caduceus.platform.host.metrics.MetricsRegistry;
import dev.caduceus.platform.runtime.spend.SpendLedger;
import dev.caduceus.platform.runtime.spend.SpendLimits;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two nodes on one database share a key's budget: each node's ledger writes a budgeted key's calls at once, and each
 * budget check reads every node's rows, so turns alternating between the nodes stop within one turn of the budget;
 * the sums of every node add up in {@code model_usage}. On SQLite (two connections to one file, as a restarted
 * process) and on PostgreSQL (two nodes).
 */
class SharedBudgetTest {
    @TempDir Path dir;

    /** 0.009 USD a turn against a budget of 0.02 USD a day. */
    static final long TURN_PICO = 9_000_000_000L;
    static final long BUDGET_PICO = 20_000_000_000L;

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void turnsOnTwoNodesStopWithinOneTurnOfTheBudget(Dialect dialect) {
        var store = TestStore.create(dialect, dir);
        var limits = new SpendLimits(Optional.of(Budget.parse("0.02", "day")), 0);
        try (var a = store.open(); var b = store.open()) {
            var nodes = new SpendLedger[] {
                    new SpendLedger(a, owner -> owner.equals("tenant") ? limits : SpendLimits.NONE, Clock.systemUTC(),
                            new MetricsRegistry().host(), null),
                    new SpendLedger(b, owner -> owner.equals("tenant") ? limits : SpendLimits.NONE, Clock.systemUTC(),
                            new MetricsRegistry().host(), null)};
            int admitted = 0;
            RunRejectedException refused = null;
            for (int turn = 0; turn < 10 && refused == null; turn++) {
                var node = nodes[turn % 2];
                var refusal = node.refusal("tenant");
                if (refusal.isPresent()) {
                    refused = refusal.get();
                    break;
                }
                admitted++;
                node.record("tenant", "fast", "fast/0", new Usage(1000, 500, 1500, 200, 400), TURN_PICO);
                nodes[(turn + 1) % 2].record("other", "fast", "fast/0", new Usage(10, 5, 15), 1_000); // no budget: kept in memory
            }
            assertEquals(3, admitted, "0, 0.009 and 0.018 USD were under 0.02; 0.027 is not");
            assertEquals(RunRejectedException.Reason.BUDGET_EXCEEDED, refused.reason());
            assertTrue(refused.toApiError().headers().containsKey("Retry-After"), refused.toApiError().headers().toString());
            long spent = 3 * TURN_PICO;
            assertTrue(spent - BUDGET_PICO < TURN_PICO, "overspent by less than one turn");
            for (var node : nodes) node.flush();
            var day = java.time.Instant.now();
            assertEquals(spent, nodes[0].spentSince("tenant", Budget.Period.DAY.start(day)), "every node's rows");
            assertEquals(spent, nodes[1].spentSince("tenant", Budget.Period.DAY.start(day)));
            assertEquals(3_000L, nodes[0].spentSince("other", Budget.Period.DAY.start(day)), "written by the flushes");
        }
    }
}
