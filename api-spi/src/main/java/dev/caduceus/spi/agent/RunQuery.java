package dev.caduceus.spi.agent;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A page request over durable runs, newest first ({@code created_at} desc, then {@code run_id}
 * desc). Immutable.
 *
 * @param statuses        statuses to keep; empty for all
 * @param sessionId       only runs of this session, or null
 * @param origin          only runs of this origin ({@link RunRequest#origin()}, e.g. {@code job:<id>}), or null
 * @param limit           page size, 1–100
 * @param beforeCreatedAt keyset cursor: only runs strictly after this position in the order, or null
 * @param beforeRunId     the cursor's run id (with {@code beforeCreatedAt})
 * @param owner           only runs of this key, or null for every key's (the admin's view)
 */
public record RunQuery(Set<RunStatus> statuses, String sessionId, String origin, int limit, Instant beforeCreatedAt,
                       String beforeRunId, String owner) {
    public RunQuery {
        statuses = Set.copyOf(statuses);
        if (limit < 1 || limit > 100) throw new IllegalArgumentException("limit must be 1-100");
        if ((beforeCreatedAt == null) != (beforeRunId == null))
            throw new IllegalArgumentException("beforeCreatedAt and beforeRunId go together");
    }

    /** Every key's runs. */
    public RunQuery(Set<RunStatus> statuses, String sessionId, String origin, int limit, Instant beforeCreatedAt,
                    String beforeRunId) {
        this(statuses, sessionId, origin, limit, beforeCreatedAt, beforeRunId, null);
    }

    /** One page of {@link Runs#list}; {@code hasMore} when further runs match. Immutable. */
    public record Page(List<RunRecord> runs, boolean hasMore) {
        public Page {
            runs = List.copyOf(runs);
        }
    }
}
