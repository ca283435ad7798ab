package dev.caduceus.plugin.responses;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.store.PluginDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The store's lists: stored responses newest first ({@code GET /v1/responses}) and conversation names
 * ({@code GET /api/conversations}). Reads only the list columns of {@code V5__response_list.sql} and
 * the indexes on {@code (owner, created_at, created_seq)} and {@code (created_at, created_seq)}, never
 * an envelope or a transcript, and never refreshes an access tick (listing is not using a response).
 * Newest first is {@code created_at} descending, then {@code created_seq} (the access tick at first
 * insert) descending, so responses created within one second keep their order. Thread-safe.
 */
final class ResponseCatalog {
    private static final String ITEM_COLUMNS = "id, owner, created_at, created_seq, status, model, previous_response_id, "
            + "conversation, input_preview, output_preview, metadata";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private final PluginDatabase db;

    ResponseCatalog(PluginDatabase db) {
        this.db = db;
    }

    /** A position in the response list: the list continues after (older than) this one. */
    record Cursor(long createdAt, long createdSeq) {}

    /**
     * One listed response.
     *
     * @param conversation the conversation name the turn was sent with, or null
     */
    record Item(String id, String owner, long createdAt, long createdSeq, String conversation, ResponseSummary summary,
                String metadata) {
        Item {
            requireNonNull(id, "id");
            requireNonNull(owner, "owner");
            requireNonNull(summary, "summary");
        }

        /** The list entry, keys in the documented order; {@code owner} is a Caduceus addition, as on runs and jobs. */
        ObjectNode toJson() {
            return Envelope.JSON.objectNode().put("id", id).put("created_at", createdAt).put("status", summary.status())
                    .put("model", summary.model()).put("previous_response_id", summary.previousResponseId())
                    .put("conversation", conversation).put("input_preview", summary.inputPreview())
                    .put("output_preview", summary.outputPreview()).put("owner", owner)
                    .set("metadata", metadataObject());
        }

        /** The response's {@code metadata} column as an object ({} when unset or unreadable). */
        private ObjectNode metadataObject() {
            try {
                return metadata != null && JSON.readTree(metadata) instanceof ObjectNode o ? o : Envelope.JSON.objectNode();
            } catch (Exception e) {
                return Envelope.JSON.objectNode();
            }
        }
    }

    /** One page of the list and whether older responses follow. */
    record Page(List<Item> data, boolean hasMore) {
        Page {
            data = List.copyOf(data);
        }
    }

    /** One conversation name and the chain it points at. */
    record Conversation(String owner, String name, String responseId, long updatedAt, long turns) {
        ObjectNode toJson() {
            return Envelope.JSON.objectNode().put("name", name).put("response_id", responseId)
                    .put("updated_at", updatedAt).put("turns", turns).put("owner", owner);
        }
    }

    /**
     * Where the list continues after response {@code id}: empty when no stored response has that id
     * or {@code caller} may not see it (so another key's id reads as unknown).
     */
    Optional<Cursor> cursorAfter(String id, Caller caller) {
        return db.read(sql -> sql.queryOne("SELECT owner, created_at, created_seq FROM responses WHERE id = ?",
                r -> caller.owns(r.getString(1)) ? new Cursor(r.getLong(2), r.getLong(3)) : null, id));
    }

    /**
     * Up to {@code limit} stored responses, newest first, after {@code after} (null: from the newest).
     *
     * @param owner        only this key's responses, or null for every key's
     * @param conversation only the chain of this conversation name of {@code nameOwner}, or null
     * @param nameOwner    whose conversation names {@code conversation} is looked up in
     */
    Page page(String owner, String conversation, String nameOwner, Cursor after, int limit) {
        return db.read(sql -> {
            var where = new ArrayList<String>();
            var args = new ArrayList<Object>();
            var prefix = "";
            if (conversation != null) {
                var head = sql.queryOne("SELECT response_id FROM conversations WHERE owner = ? AND name = ?",
                        r -> r.getString(1), nameOwner, conversation);
                if (head.isEmpty()) return new Page(List.of(), false);
                prefix = ChainWalk.CTE;
                args.add(head.get());
                args.add(nameOwner);
                args.add(nameOwner);
                where.add("id IN (SELECT id FROM chain)");
            }
            if (owner != null) {
                where.add("owner = ?");
                args.add(owner);
            }
            if (after != null) {
                where.add("(created_at < ? OR (created_at = ? AND created_seq < ?))");
                args.add(after.createdAt());
                args.add(after.createdAt());
                args.add(after.createdSeq());
            }
            args.add(limit + 1);
            var items = sql.query(prefix + "SELECT " + ITEM_COLUMNS + " FROM responses"
                    + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                    + " ORDER BY created_at DESC, created_seq DESC LIMIT ?", r -> new Item(r.getString(1), r.getString(2),
                    r.getLong(3), r.getLong(4), r.getString(8), new ResponseSummary(r.getString(5), r.getString(6),
                    r.getString(7), r.getString(9), r.getString(10)), r.getString(11)), args.toArray());
            boolean more = items.size() > limit;
            return new Page(more ? items.subList(0, limit) : items, more);
        });
    }

    /**
     * Up to {@code limit} conversation names, most recently updated (their latest response created)
     * first, each with its chain's length.
     *
     * @param owner only this key's names, or null for every key's
     */
    List<Conversation> conversations(String owner, int limit) {
        return db.read(sql -> {
            var rows = sql.query("SELECT c.owner, c.name, c.response_id, r.created_at FROM conversations c "
                    + "JOIN responses r ON r.id = c.response_id" + (owner == null ? "" : " WHERE c.owner = ?")
                    + " ORDER BY r.created_at DESC, r.created_seq DESC, c.owner, c.name LIMIT ?",
                    r -> new Object[] {r.getString(1), r.getString(2), r.getString(3), r.getLong(4)},
                    owner == null ? new Object[] {limit} : new Object[] {owner, limit});
            var conversations = new ArrayList<Conversation>(rows.size());
            for (var row : rows) {
                var name = (String) row[1];
                var head = (String) row[2];
                var nameOwner = (String) row[0];
                conversations.add(new Conversation(nameOwner, name, head, (Long) row[3],
                        ChainWalk.count(sql, head, nameOwner)));
            }
            return conversations;
        });
    }
}
