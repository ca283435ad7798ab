package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The store of OpenAI's conversation objects ({@code conv_…}, {@code V8__conversation_objects.sql}): each with its
 * owner (the key that created it: another key's conversation is absent, as an unknown one), creation time, metadata
 * and items in order. Items are kept as listed ({@link ConversationItems}); a response continuing a conversation
 * adds its input and output items when it completes ({@link #appendTurn}, inside the response's own save). Several
 * nodes may share it (PostgreSQL): nothing is kept in memory. Thread-safe.
 */
final class ConversationObjects {
    static final String PREFIX = "conv_";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One conversation object. */
    record Conversation(String id, String owner, long createdAt, ObjectNode metadata) {
        /** OpenAI's {@code conversation} object. */
        ObjectNode toJson() {
            var body = Envelope.JSON.objectNode().put("id", id).put("object", "conversation").put("created_at", createdAt);
            body.set("metadata", metadata.deepCopy());
            return body;
        }
    }

    private final PluginDatabase db;
    private final ObjectMapper json;
    private final Clock clock;

    ConversationObjects(PluginDatabase db, ObjectMapper json, Clock clock) {
        this.db = db;
        this.json = json;
        this.clock = clock;
    }

    /** Whether {@code conversation} (a request's {@code conversation}) names a conversation object rather than a Hermes name. */
    static boolean isObjectId(String conversation) {
        return conversation != null && conversation.startsWith(PREFIX);
    }

    /**
     * Up to {@code limit} conversation objects, newest first, each as {@code {"id","created_at","metadata","items",
     * "owner"}} ({@code items}: how many it holds), for the console's list ({@code GET /api/conversations}).
     *
     * @param owner only this key's, or null for every key's
     */
    List<ObjectNode> list(String owner, int limit) {
        return db.read(sql -> sql.query("SELECT o.id, o.created_at, o.metadata, o.owner, (SELECT COUNT(*) FROM conversation_items i "
                    + "WHERE i.conversation_id = o.id) FROM conversation_objects o" + (owner == null ? "" : " WHERE o.owner = ?")
                    + " ORDER BY o.created_at DESC, o.id LIMIT ?",
                    r -> {
                        var row = Envelope.JSON.objectNode().put("id", r.getString(1)).put("created_at", r.getLong(2));
                        row.set("metadata", parse(r.getString(3)).orElse(Envelope.JSON.objectNode()));
                        return row.put("items", r.getLong(5)).put("owner", r.getString(4));
                    }, owner == null ? new Object[] {limit} : new Object[] {owner, limit}));
    }

    /** A new conversation of {@code owner} with {@code metadata} and {@code items}, in one transaction. */
    Conversation create(String owner, ObjectNode metadata, List<ObjectNode> items) {
        var bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        var conversation = new Conversation(PREFIX + HexFormat.of().formatHex(bytes), owner, clock.instant().getEpochSecond(),
                metadata);
        db.write(sql -> {
            sql.update("INSERT INTO conversation_objects (id, owner, created_at, metadata) VALUES (?, ?, ?, ?)",
                    conversation.id(), owner, conversation.createdAt(), text(metadata));
            append(sql, conversation.id(), items);
            return null;
        });
        return conversation;
    }

    /** The conversation if {@code caller} owns it. */
    Optional<Conversation> find(String id, Caller caller) {
        return db.read(sql -> row(sql, id)).filter(c -> caller.owns(c.owner()));
    }

    /** Replaces the metadata of {@code caller}'s conversation {@code id}; empty when it is not {@code caller}'s. */
    Optional<Conversation> updateMetadata(String id, Caller caller, ObjectNode metadata) {
        return db.write(sql -> {
            var found = row(sql, id).filter(c -> caller.owns(c.owner()));
            if (found.isEmpty()) return Optional.<Conversation>empty();
            sql.update("UPDATE conversation_objects SET metadata = ? WHERE id = ?", text(metadata), id);
            var c = found.get();
            return Optional.of(new Conversation(c.id(), c.owner(), c.createdAt(), metadata));
        });
    }

    /** Removes {@code caller}'s conversation {@code id} and its items; false when it is not {@code caller}'s. */
    boolean delete(String id, Caller caller) {
        return db.write(sql -> {
            if (row(sql, id).filter(c -> caller.owns(c.owner())).isEmpty()) return false;
            sql.update("DELETE FROM conversation_items WHERE conversation_id = ?", id);
            return sql.update("DELETE FROM conversation_objects WHERE id = ?", id) > 0;
        });
    }

    /** The items of conversation {@code id} (found owned already), oldest first. */
    List<ObjectNode> items(String id) {
        var rows = db.read(sql -> sql.query("SELECT item FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
                r -> r.getString(1), id));
        var items = new ArrayList<ObjectNode>(rows.size());
        for (var row : rows) {
            try {
                if (json.readTree(row) instanceof ObjectNode item) items.add(item);
            } catch (Exception e) {
                // a corrupt item is left out of the list
            }
        }
        return items;
    }

    /** Appends {@code items} to conversation {@code id} (found owned already); an item whose id is there already is skipped. */
    void add(String id, List<ObjectNode> items) {
        db.write(sql -> {
            append(sql, id, items);
            return null;
        });
    }

    /** One item of conversation {@code id}. */
    Optional<ObjectNode> item(String id, String itemId) {
        return db.read(sql -> sql.queryOne("SELECT item FROM conversation_items WHERE conversation_id = ? AND item_id = ?",
                r -> r.getString(1), id, itemId)).flatMap(this::parse);
    }

    /** Removes one item of conversation {@code id}; false when there is no such item. */
    boolean deleteItem(String id, String itemId) {
        return db.write(sql -> sql.update("DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?", id,
                itemId) > 0);
    }

    /**
     * Inside a response's save: appends its input and output {@code items} to conversation {@code id} if {@code owner}
     * owns it (a response's items are added once: their ids are unique in the conversation).
     */
    void appendTurn(Sql sql, String id, String owner, List<ObjectNode> items) {
        if (row(sql, id).filter(c -> c.owner().equals(owner)).isEmpty()) return; // removed meanwhile
        append(sql, id, items);
    }

    private void append(Sql sql, String id, List<ObjectNode> items) {
        // Takes the conversation's row lock first (a no-op write; SQLite has one writer anyway), so that two nodes
        // appending to one conversation on PostgreSQL number their items one after the other, not both from one MAX.
        sql.update("UPDATE conversation_objects SET metadata = metadata WHERE id = ?", id);
        long seq = sql.queryOne("SELECT COALESCE(MAX(seq), 0) FROM conversation_items WHERE conversation_id = ?",
                r -> r.getLong(1), id).orElse(0L);
        for (var item : items) {
            var itemId = item.path("id").asText();
            if (sql.queryOne("SELECT 1 FROM conversation_items WHERE conversation_id = ? AND item_id = ?",
                    r -> r.getInt(1), id, itemId).isPresent()) continue;
            sql.update("INSERT INTO conversation_items (conversation_id, seq, item_id, item) VALUES (?, ?, ?, ?)", id,
                    ++seq, itemId, text(item));
        }
    }

    private Optional<Conversation> row(Sql sql, String id) {
        return sql.queryOne("SELECT owner, created_at, metadata FROM conversation_objects WHERE id = ?",
                r -> new Object[] {r.getString(1), r.getLong(2), r.getString(3)}, id).map(r -> {
                    var metadata = parse((String) r[2]).orElse(Envelope.JSON.objectNode());
                    return new Conversation(id, (String) r[0], (Long) r[1], metadata);
                });
    }

    private Optional<ObjectNode> parse(String text) {
        try {
            return json.readTree(text) instanceof ObjectNode o ? Optional.of(o) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private String text(JsonNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (Exception e) {
            throw new IllegalStateException("cannot serialize", e); // a tree: never
        }
    }
}
