package dev.caduceus.plugin.runs;

import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.HttpExchange;

/**
 * A run as the caller may see it: each named key sees only the runs it started (its own tenant),
 * the admin key sees all. Another key's run is 404 {@code run_not_found}, exactly like a run that
 * does not exist, so ids do not leak. Stateless.
 */
final class OwnedRuns {
    private OwnedRuns() {}

    /** The run {@code id} if the caller owns it; else 404. */
    static RunRecord require(Runs runs, HttpExchange exchange, String id) {
        var record = runs.record(id).orElseThrow(() -> RunErrors.runNotFound(id));
        if (!exchange.caller().owns(record.owner())) throw RunErrors.runNotFound(id);
        return record;
    }
}
