package dev.caduceus.plugin.responses;

import dev.caduceus.spi.store.Sql;
import java.util.List;

/**
 * A conversation's chain in the store: its latest response and, following {@code parent_id}, every
 * response it continued, as long as they belong to the conversation's owner (a conversation's turns
 * are all its owner's; the walk never crosses into another key's responses). One recursive query
 * ({@code WITH RECURSIVE … UNION}, which SQLite and PostgreSQL both run and which stops on a repeated
 * row). Stateless; every method runs inside the caller's transaction.
 */
final class ChainWalk {
    /** The chain as a CTE named {@code chain (id)}; binds head id, owner, owner. */
    static final String CTE = """
            WITH RECURSIVE chain (id, parent_id) AS (
                SELECT id, parent_id FROM responses WHERE id = ? AND owner = ?
                UNION
                SELECT r.id, r.parent_id FROM responses r JOIN chain c ON r.id = c.parent_id WHERE r.owner = ?)
            """;

    private ChainWalk() {}

    /** The ids of the chain ending at {@code headId}, of {@code owner}'s responses; empty when the head is not theirs. */
    static List<String> ids(Sql sql, String headId, String owner) {
        return sql.query(CTE + "SELECT id FROM chain", r -> r.getString(1), headId, owner, owner);
    }

    /** How many responses the chain ending at {@code headId} has. */
    static long count(Sql sql, String headId, String owner) {
        return sql.queryOne(CTE + "SELECT COUNT(*) FROM chain", r -> r.getLong(1), headId, owner, owner).orElse(0L);
    }
}
