package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.store.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The {@code response_messages} table: transcripts shared along a chain (see V2__chain_messages.sql).
 * A response owns the messages {@code base_seq+1 .. last_seq} of its chain and its transcript is
 * every message with {@code seq <= last_seq}. Invariant: a chain holds no message above the highest
 * {@code last_seq} of the responses on it, and {@code 1 .. last_seq} of every response are present.
 * A save appends its own messages in place when no other response on the chain reaches past its
 * base; otherwise (a branch) the base is first copied into a new chain. Stateless apart from the
 * mapper; every method runs inside the caller's transaction.
 */
final class ChainMessages {
    /** Where a response's messages go: after {@code baseSeq} in {@code chainId}. */
    record Placement(String chainId, long baseSeq, long lastSeq) {}

    private final ObjectMapper json;

    ChainMessages(ObjectMapper json) {
        this.json = json;
    }

    /** Writes the messages of response {@code id} (first save or re-save); returns where they are. */
    Placement append(Sql sql, String id, TranscriptWrite write) {
        var start = sql.queryOne("SELECT chain_id, base_seq FROM responses WHERE id = ? AND chain_id IS NOT NULL",
                r -> new Placement(r.getString(1), r.getLong(2), r.getLong(2)), id).orElse(null);
        if (start == null && write.parent() != null)
            start = new Placement(write.parent().chainId(), write.parent().lastSeq(), write.parent().lastSeq());
        if (start != null && !anchored(sql, start)) start = null; // the parent went away meanwhile
        if (start == null) start = seed(sql, write.prior());
        else if (branched(sql, start, id)) start = fork(sql, start);
        sql.update("DELETE FROM response_messages WHERE chain_id = ? AND seq > ?", start.chainId(), start.baseSeq());
        insert(sql, start.chainId(), start.baseSeq(), write.own());
        return new Placement(start.chainId(), start.baseSeq(), start.baseSeq() + write.own().size());
    }

    /**
     * The last {@code limit} messages of the transcript ending at {@code position}, oldest first, in
     * one range query; null when some are missing (the chain was pruned meanwhile).
     */
    List<Message> read(Sql sql, ChainPosition position, int limit) throws Exception {
        long from = Math.max(0, position.lastSeq() - limit);
        var rows = sql.query("""
                SELECT message_json FROM response_messages WHERE chain_id = ? AND seq > ? AND seq <= ?
                ORDER BY seq""", r -> r.getString(1), position.chainId(), from, position.lastSeq());
        if (rows.size() != position.lastSeq() - from) return null;
        var messages = new ArrayList<Message>(rows.size());
        for (var row : rows) messages.add(json.readValue(row, Message.class));
        return messages;
    }

    /** Deletes the messages of {@code chainId} that no stored response reaches any more. */
    void prune(Sql sql, String chainId) {
        sql.update("""
                DELETE FROM response_messages WHERE chain_id = ?
                  AND seq > COALESCE((SELECT MAX(last_seq) FROM responses WHERE chain_id = ?), 0)""",
                chainId, chainId);
    }

    /** Messages {@code 1 .. baseSeq} are still there: some stored response reaches that far. */
    private static boolean anchored(Sql sql, Placement start) {
        if (start.baseSeq() == 0) return true;
        long reach = sql.queryOne("SELECT MAX(last_seq) FROM responses WHERE chain_id = ?",
                r -> r.getObject(1) == null ? 0L : r.getLong(1), start.chainId()).orElse(0L);
        return reach >= start.baseSeq();
    }

    /** Another response already continues the chain past {@code baseSeq}. */
    private static boolean branched(Sql sql, Placement start, String id) {
        return sql.queryOne("SELECT id FROM responses WHERE chain_id = ? AND last_seq > ? AND id <> ? LIMIT 1",
                r -> r.getString(1), start.chainId(), start.baseSeq(), id).isPresent();
    }

    private Placement seed(Sql sql, List<Message> prior) {
        var chain = UUID.randomUUID().toString();
        insert(sql, chain, 0, prior);
        return new Placement(chain, prior.size(), prior.size());
    }

    private static Placement fork(Sql sql, Placement start) {
        var chain = UUID.randomUUID().toString();
        sql.update("""
                INSERT INTO response_messages (chain_id, seq, message_json)
                SELECT ?, seq, message_json FROM response_messages WHERE chain_id = ? AND seq <= ?""",
                chain, start.chainId(), start.baseSeq());
        return new Placement(chain, start.baseSeq(), start.baseSeq());
    }

    private void insert(Sql sql, String chain, long after, List<Message> messages) {
        long seq = after;
        for (var message : messages) {
            String text;
            try {
                text = json.writeValueAsString(message);
            } catch (Exception e) {
                throw new IllegalStateException("cannot serialize a message", e);
            }
            sql.update("INSERT INTO response_messages (chain_id, seq, message_json) VALUES (?, ?, ?)", chain, ++seq, text);
        }
    }
}
