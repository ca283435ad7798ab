package dev.caduceus.plugin.responses;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.http.Caller;
import dev.caduceus.spi.store.PluginDatabase;
import dev.caduceus.spi.store.Sql;
import dev.caduceus.support.sql.MultiRowInsert;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The SQLite response store: responses, their transcripts as chain messages
 * ({@link ChainMessages}), conversation names, and the event journals of streamed responses. Writes evict the least recently used rows
 * beyond {@code maxStored}; removing a response also removes its journal and every name pointing to
 * it; a row that no longer parses is dropped on read. Every response belongs to the key that created
 * it ({@link StoredResponse#owner()}): reads and removals take the {@link Caller} and treat another
 * key's response exactly as an unknown id (so ids do not leak); the admin key reaches all.
 * Conversation names are per key. The journal and chain messages are reached only through their
 * response. Each save also writes the row's list columns ({@link ResponseSummary}, its parent and
 * conversation name), which {@link ResponseCatalog} lists from; a conversation's chain is its latest
 * response and that one's parents ({@link ChainWalk}).
 *
 * <p>Several nodes may share the store (PostgreSQL): nothing here is kept in memory between calls, and
 * the access and creation ticks are taken inside the write that uses them. A response saved
 * {@code in_progress} carries a stream lease ({@code streaming_until}, {@code V6__stream_lease.sql})
 * that the node streaming it renews ({@link #renewStreams}); one whose lease ran out was being streamed
 * by a process that died ({@link #interruptInProgress}, {@link #interruptAbandoned}). Leases are read
 * against the {@code clock} of each node, so the nodes' clocks must agree to well within
 * {@link #STREAM_LEASE}, as the jobs' due times already require.
 *
 * <p>Thread-safe (the database serializes writes).
 */
final class ResponseStore {
    private static final TypeReference<List<Message>> MESSAGES = new TypeReference<>() {};
    private static final String IN_PROGRESS = "in_progress";
    private static final String QUEUED = "queued";
    /** The error of a background response whose server stopped before it finished. */
    static final String SERVER_STOPPED = "The server running this background response stopped before it finished.";
    /** How long a stream lease lasts without renewal; renewed every {@link #STREAM_RENEWAL}. */
    static final Duration STREAM_LEASE = Duration.ofSeconds(60);
    static final Duration STREAM_RENEWAL = Duration.ofSeconds(15);

    /** One journal frame as sent. */
    record Frame(long seq, String type, String json) {}

    private final PluginDatabase db;
    private final ObjectMapper json;
    private final int maxStored;
    private final ChainMessages chain;
    private final Clock clock;
    private final AppendSignals appended = new AppendSignals();
    private final ConversationObjects conversationObjects;
    private final dev.caduceus.spi.webhook.Webhooks webhooks;

    ResponseStore(PluginDatabase db, ObjectMapper json, int maxStored, Clock clock) {
        this(db, json, maxStored, clock, null);
    }

    /** @param webhooks told when a background response ends (in the transaction that ends it), or null */
    ResponseStore(PluginDatabase db, ObjectMapper json, int maxStored, Clock clock, dev.caduceus.spi.webhook.Webhooks webhooks) {
        this.webhooks = webhooks;
        this.db = db;
        this.json = json;
        this.maxStored = Math.max(1, maxStored);
        this.chain = new ChainMessages(json);
        this.clock = clock;
        this.conversationObjects = new ConversationObjects(db, json, clock);
    }

    /** OpenAI's conversation objects, in the same database ({@code conversation: "conv_…"} turns add their items there). */
    ConversationObjects conversationObjects() {
        return conversationObjects;
    }

    /**
     * Inserts or replaces {@code response} with its messages written to the chain store (O(own
     * messages), see {@link ChainMessages}), points {@code conversation} (if any) of the response's
     * owner at it, then evicts. The owner is set when the row is first inserted and never changes. A
     * response saved {@code in_progress} gets a stream lease of {@link #STREAM_LEASE}; any other status
     * ends it; a {@code queued} (background) one gets one too, since a process holds it in its queue.
     */
    void save(StoredResponse response, TranscriptWrite transcript, String conversation) {
        String envelope;
        try {
            envelope = json.writeValueAsString(response.envelope());
        } catch (Exception e) {
            throw new IllegalStateException("cannot serialize response " + response.id(), e);
        }
        var summary = ResponseSummary.of(response.envelope(), transcript.own().subList(0, transcript.inputs()));
        Long lease = IN_PROGRESS.equals(summary.status()) || QUEUED.equals(summary.status()) ? clock.instant().plus(STREAM_LEASE).toEpochMilli() : null;
        db.write(sql -> {
            var previous = chainOf(sql, response.id());
            var at = chain.append(sql, response.id(), transcript);
            long tick = tick(sql);
            // created_seq (the tick at first insert), parent_id and conversation are written once.
            sql.update("""
                    INSERT INTO responses (id, owner, envelope, transcript, instructions, session_id, streamed,
                        created_at, accessed_at, chain_id, base_seq, last_seq, input_seq, created_seq, parent_id,
                        conversation, status, model, previous_response_id, input_preview, output_preview, streaming_until,
                        metadata)
                    VALUES (?, ?, ?, '[]', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET envelope = excluded.envelope, transcript = excluded.transcript,
                        instructions = excluded.instructions, session_id = excluded.session_id,
                        streamed = excluded.streamed, accessed_at = excluded.accessed_at,
                        chain_id = excluded.chain_id, base_seq = excluded.base_seq, last_seq = excluded.last_seq,
                        input_seq = excluded.input_seq, status = excluded.status, model = excluded.model,
                        previous_response_id = excluded.previous_response_id,
                        input_preview = excluded.input_preview, output_preview = excluded.output_preview,
                        streaming_until = excluded.streaming_until, metadata = excluded.metadata""",
                    response.id(), response.owner(), envelope, response.instructions(), response.sessionId(),
                    response.streamed() ? 1 : 0, response.createdAt(), tick, at.chainId(), at.baseSeq(), at.lastSeq(),
                    at.baseSeq() + transcript.inputs(), tick, response.parentId(), conversation, summary.status(),
                    summary.model(), summary.previousResponseId(), summary.inputPreview(), summary.outputPreview(),
                    lease, response.envelope().path("metadata").toString());
            if (previous != null && !previous.equals(at.chainId())) chain.prune(sql, previous);
            ended(sql, response.id(), response.owner(), response.envelope());
            if (ConversationObjects.isObjectId(conversation)) {
                if ("completed".equals(summary.status())) // its input, then its output, once it completed (as OpenAI)
                    conversationObjects.appendTurn(sql, conversation, response.owner(), turnItems(response, transcript));
            } else if (conversation != null) {
                sql.update("""
                        INSERT INTO conversations (owner, name, response_id) VALUES (?, ?, ?)
                        ON CONFLICT (owner, name) DO UPDATE SET response_id = excluded.response_id""",
                        response.owner(), conversation, response.id());
            }
            return null;
        });
        evictBeyondCap();
    }

    /**
     * The next access tick ({@code accessed_at}, {@code created_seq}): on PostgreSQL from a sequence, which no
     * transaction reads as a predicate (reading {@code MAX(accessed_at)} made every save depend on every other under
     * SERIALIZABLE); on SQLite, whose writes are serialized anyway, the highest tick + 1.
     */
    private long tick(Sql sql) {
        return sql.queryOne(db.dialect() == PluginDatabase.Dialect.POSTGRESQL ? "SELECT nextval('responses_tick')"
                : "SELECT COALESCE(MAX(accessed_at), 0) + 1 FROM responses", r -> r.getLong(1)).orElseThrow();
    }

    /**
     * Evicts beyond {@code maxStored}, in a write of its own and only when the count (read outside any write) is over:
     * counting the table inside every save made each save depend on every other one on PostgreSQL.
     */
    private void evictBeyondCap() {
        long count = db.read(sql -> sql.queryOne("SELECT COUNT(*) FROM responses", r -> r.getLong(1)).orElse(0L));
        if (count <= maxStored) return;
        db.write(sql -> {
            evict(sql);
            return null;
        });
    }

    /** A completed turn's conversation items: its input messages as input items, then its output items. */
    private static List<ObjectNode> turnItems(StoredResponse response, TranscriptWrite transcript) {
        var items = new ArrayList<>(InputItems.of(response.id(), transcript.own().subList(0, transcript.inputs())));
        for (var item : response.envelope().path("output"))
            if (item instanceof ObjectNode o) items.add(o.deepCopy());
        return items;
    }

    /**
     * The stored response if {@code caller} owns it, refreshing its access tick; another key's
     * response is absent as an unknown one is (and keeps its tick). A corrupt row is deleted and
     * reported absent.
     */
    Optional<StoredResponse> find(String id, Caller caller) {
        var row = db.read(sql -> sql.queryOne("""
                SELECT envelope, instructions, session_id, streamed, created_at, chain_id, last_seq, owner, parent_id
                FROM responses WHERE id = ?""",
                r -> new Object[] {r.getString(1), r.getString(2), r.getString(3), r.getInt(4), r.getLong(5),
                        r.getString(6), r.getLong(7), r.getString(8), r.getString(9)}, id));
        if (row.isEmpty() || !caller.owns((String) row.get()[7])) return Optional.empty();
        var v = row.get();
        StoredResponse response;
        try {
            var envelope = json.readTree((String) v[0]);
            if (!(envelope instanceof ObjectNode object) || !id.equals(object.path("id").asText()))
                throw new IllegalStateException("envelope is not a response object");
            var position = v[5] == null ? null : new ChainPosition((String) v[5], (Long) v[6]);
            response = new StoredResponse(id, (String) v[7], object, (String) v[1], (String) v[2], ((Integer) v[3]) != 0,
                    (Long) v[4], position, (String) v[8]);
        } catch (Exception e) {
            drop(id); // a corrupt row is dropped; the chain restarts from nothing
            return Optional.empty();
        }
        db.write(sql -> sql.update("UPDATE responses SET accessed_at = ? WHERE id = ?", tick(sql), id));
        return Optional.of(response);
    }

    /**
     * The last {@code limit} messages of the response's transcript (one range query), or the whole
     * transcript of a V1 row (no chain: read from its own column). Empty when the transcript is gone
     * (removed meanwhile) or corrupt; a corrupt one also drops the response.
     */
    Optional<List<Message>> history(StoredResponse response, int limit) {
        try {
            if (response.position() == null)
                return Optional.of(json.readValue(db.read(sql -> sql.queryOne(
                        "SELECT transcript FROM responses WHERE id = ?", r -> r.getString(1), response.id()))
                        .orElseThrow(), MESSAGES));
            return Optional.ofNullable(db.read(sql -> chain.read(sql, response.position(), limit)));
        } catch (Exception e) {
            drop(response.id());
            return Optional.empty();
        }
    }

    /**
     * The items used to generate the response ({@code GET …/input_items}, issue 20): its transcript up to and including its
     * own input messages, oldest first, without the messages its run produced. A row written before
     * V3 has no recorded input end: its input ends at the last message that is neither an assistant
     * nor a tool message. Empty when the transcript is gone or corrupt (a corrupt one also drops the
     * response, as {@link #history} does).
     */
    Optional<List<Message>> inputs(StoredResponse response) {
        try {
            if (response.position() == null) {
                var transcript = json.readValue(db.read(sql -> sql.queryOne(
                        "SELECT transcript FROM responses WHERE id = ?", r -> r.getString(1), response.id()))
                        .orElseThrow(), MESSAGES);
                return Optional.of(transcript.subList(0, inferredInputEnd(transcript)));
            }
            long inputSeq = db.read(sql -> sql.queryOne("SELECT input_seq FROM responses WHERE id = ?",
                    r -> r.getObject(1) == null ? -1L : r.getLong(1), response.id())).orElse(-1L);
            if (inputSeq < 0) {
                var messages = db.read(sql -> chain.read(sql, response.position(), Integer.MAX_VALUE));
                return Optional.ofNullable(messages).map(m -> m.subList(0, inferredInputEnd(m)));
            }
            var end = new ChainPosition(response.position().chainId(),
                    Math.min(inputSeq, response.position().lastSeq()));
            return Optional.ofNullable(db.read(sql -> chain.read(sql, end, Integer.MAX_VALUE)));
        } catch (Exception e) {
            drop(response.id());
            return Optional.empty();
        }
    }

    /** After the last message a run cannot have produced (a run adds only assistant and tool messages). */
    private static int inferredInputEnd(List<Message> transcript) {
        for (int i = transcript.size() - 1; i >= 0; i--) {
            var role = transcript.get(i).role();
            if (!role.equals("assistant") && !role.equals("tool")) return i + 1;
        }
        return 0;
    }

    /**
     * Boot recovery, before any request: a response still {@code in_progress} was being streamed
     * when an earlier process died (a {@code kill -9} skips the disconnect snapshot), and
     * would read {@code in_progress} forever. Each becomes {@code incomplete}, as a client that left
     * would have left it, with its unfinished items {@code incomplete} too; like runs that become
     * {@code interrupted}. Its journal stays as it is, so a replay ends with a synthetic terminal event. A background
     * response is left alone: its run may be resumed ({@link BackgroundResponses#takeOver}), and one whose run is not
     * ends {@code failed} then ({@link #strandedBackground}). Only responses whose stream lease ended before
     * {@code leaseEnded} (or that have none) are taken: on SQLite, where this process is the only one,
     * pass {@link Instant#MAX} (every lease is a dead process's); on a shared PostgreSQL pass now, since
     * other nodes are streaming theirs. Returns the ids recovered.
     *
     * <p>Candidates are found by their list column {@code status} or a text match on the envelope (one pass over
     * the table, once per start) and confirmed on the parsed envelope's own status.
     */
    List<String> interruptInProgress(Instant leaseEnded) {
        return db.write(sql -> interrupt(sql, sql.query("SELECT id, envelope FROM responses WHERE (status IN (?, ?) "
                        + "OR envelope LIKE ?) AND (streaming_until IS NULL OR streaming_until < ?)",
                r -> new String[] {r.getString(1), r.getString(2)}, IN_PROGRESS, QUEUED, "%\"in_progress\"%",
                before(leaseEnded))));
    }

    /**
     * While running, on a shared PostgreSQL: the responses whose stream lease ran out before {@code now}
     * (their node died, or stopped renewing) end as {@link #interruptInProgress} ends them at start.
     * Reads only leased rows (an index). Returns the ids recovered.
     */
    List<String> interruptAbandoned(Instant now) {
        return db.write(sql -> interrupt(sql, sql.query("SELECT id, envelope FROM responses WHERE streaming_until < ?",
                r -> new String[] {r.getString(1), r.getString(2)}, now.toEpochMilli())));
    }

    /** Ends each candidate still {@code in_progress} {@code incomplete}, but a background one; their leases end. */
    private List<String> interrupt(Sql sql, List<String[]> candidates) {
        var recovered = new ArrayList<String>();
        for (var row : candidates) {
            var envelope = parse(row[1]);
            if (envelope != null && envelope.path("background").asBoolean(false)) continue;
            sql.update("UPDATE responses SET streaming_until = NULL WHERE id = ?", row[0]);
            if (envelope == null || !IN_PROGRESS.equals(envelope.path("status").asText())) continue;
            stop(sql, row[0], envelope, "incomplete", null);
            recovered.add(row[0]);
        }
        return recovered;
    }

    /**
     * The background responses still {@code queued} or {@code in_progress} whose stream lease ran out before
     * {@code leaseEnded} ({@link Instant#MAX}: any lease) and that no thread of this process runs ({@code running}):
     * their server stopped. Reads only leased rows (an index).
     */
    List<String> strandedBackground(Instant leaseEnded, java.util.Set<String> running) {
        var rows = db.read(sql -> sql.query("SELECT id, envelope FROM responses WHERE streaming_until < ?",
                r -> new String[] {r.getString(1), r.getString(2)}, before(leaseEnded)));
        var stranded = new ArrayList<String>();
        for (var row : rows) {
            var envelope = parse(row[1]);
            if (envelope == null || !envelope.path("background").asBoolean(false) || running.contains(row[0])) continue;
            var status = envelope.path("status").asText();
            if (IN_PROGRESS.equals(status) || QUEUED.equals(status)) stranded.add(row[0]);
        }
        return stranded;
    }

    /**
     * Ends background response {@code id}, if it is still {@code queued} or {@code in_progress}, as {@code status}
     * ({@code failed} or {@code cancelled}) with {@code error} (or none): its items still in progress become
     * {@code incomplete}, its lease ends and its webhook event goes out. Returns the response object as ended, or
     * empty when it had ended already (or is gone).
     */
    Optional<ObjectNode> endBackground(String id, String status, String error) {
        return db.write(sql -> {
            var envelope = sql.queryOne("SELECT envelope FROM responses WHERE id = ?", r -> r.getString(1), id)
                    .map(this::parse).orElse(null);
            if (envelope == null) return Optional.<ObjectNode>empty();
            var was = envelope.path("status").asText();
            if (!IN_PROGRESS.equals(was) && !QUEUED.equals(was)) return Optional.<ObjectNode>empty();
            stop(sql, id, envelope, status, error);
            return Optional.of(envelope);
        });
    }

    /** Saves {@code envelope} (of response {@code id}) ended as {@code status}, with {@code error} or none; its lease ends. */
    private void stop(Sql sql, String id, ObjectNode envelope, String status, String error) {
        envelope.put("status", status);
        if (error != null) envelope.set("error", Envelope.error(error));
        for (var item : envelope.path("output")) {
            if (item instanceof ObjectNode o && IN_PROGRESS.equals(o.path("status").asText()))
                o.put("status", "incomplete");
        }
        try {
            sql.update("UPDATE responses SET envelope = ?, status = ?, streaming_until = NULL WHERE id = ?",
                    json.writeValueAsString(envelope), status, id);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize response " + id, e); // a parsed tree: never
        }
        sql.queryOne("SELECT owner FROM responses WHERE id = ?", r -> r.getString(1), id)
                .ifPresent(owner -> ended(sql, id, owner, envelope));
    }

    /** A stored envelope, or null when it does not parse (a corrupt row is dropped on its next read). */
    private ObjectNode parse(String envelope) {
        try {
            return json.readTree(envelope) instanceof ObjectNode object ? object : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static long before(Instant leaseEnded) {
        return leaseEnded.equals(Instant.MAX) ? Long.MAX_VALUE : leaseEnded.toEpochMilli();
    }

    /**
     * The turn of stored response {@code id} as a node that takes over its run needs it: its fixed parts, owner,
     * session, parent, conversation and input messages. Empty when the response is gone or its input no longer reads.
     */
    Optional<StoredTurn> storedTurn(String id) {
        return db.read(sql -> {
            var row = sql.queryOne("""
                    SELECT owner, envelope, session_id, parent_id, conversation, chain_id, base_seq, input_seq
                    FROM responses WHERE id = ?""", r -> new Object[] {r.getString(1), r.getString(2), r.getString(3),
                    r.getString(4), r.getString(5), r.getString(6), r.getLong(7), r.getLong(8)}, id).orElse(null);
            if (row == null) return Optional.<StoredTurn>empty();
            var envelope = parse((String) row[1]);
            if (envelope == null || row[2] == null) return Optional.<StoredTurn>empty();
            List<Message> input = List.of();
            if (row[5] != null) {
                long base = (Long) row[6];
                long inputs = (Long) row[7];
                try {
                    input = chain.read(sql, new ChainPosition((String) row[5], inputs), (int) Math.max(0, inputs - base));
                } catch (Exception e) {
                    input = null;
                }
                if (input == null) return Optional.<StoredTurn>empty();
            }
            return Optional.of(new StoredTurn(Envelope.of(envelope), (String) row[0], (String) row[2], (String) row[3],
                    (String) row[4], input));
        });
    }

    /** Remembers the webhook a background response's request named; before the response can end. */
    void attachWebhook(String id, dev.caduceus.spi.webhook.Webhook hook) {
        db.write(sql -> sql.update("UPDATE responses SET webhook_json = ? WHERE id = ?", hook.toJson().toString(), id));
    }

    /**
     * The webhook event of a background response that has just ended, in the transaction that ended it:
     * {@code response.completed}, {@code response.cancelled}, or {@code response.failed} (also for
     * {@code incomplete}), to the request's webhook and the endpoints that want it. Nothing for a foreground
     * response or one still running.
     */
    private void ended(Sql sql, String id, String owner, ObjectNode envelope) {
        if (webhooks == null || !envelope.path("background").asBoolean(false)) return;
        var status = envelope.path("status").asText();
        var type = switch (status) {
            case "completed" -> "response.completed";
            case "cancelled" -> "response.cancelled";
            case "failed", "incomplete" -> "response.failed";
            default -> null;
        };
        if (type == null) return;
        var stored = sql.queryOne("SELECT webhook_json FROM responses WHERE id = ?", r -> r.getString(1), id).orElse(null);
        dev.caduceus.spi.webhook.Webhook hook = null;
        if (stored != null) {
            try {
                hook = dev.caduceus.spi.webhook.Webhook.fromJson(json.readTree(stored));
            } catch (Exception e) {
                hook = null;
            }
        }
        var data = json.createObjectNode().put("response_id", id).put("status", status);
        if (envelope.hasNonNull("usage")) data.set("usage", envelope.get("usage").deepCopy());
        var text = Previews.output(envelope);
        if (text != null) data.put("output_preview", text);
        if (envelope.hasNonNull("error")) data.set("error", envelope.get("error").deepCopy());
        webhooks.emit(sql, type, "response:" + id + ":" + status, owner, data, hook);
    }

    /**
     * Extends the stream leases of {@code ids} (the responses this node is streaming now) to
     * {@code now} + {@link #STREAM_LEASE}; a response no longer {@code in_progress} (no lease) is left
     * alone, so a lease cannot outlive its stream.
     */
    void renewStreams(Collection<String> ids, Instant now) {
        if (ids.isEmpty()) return;
        long until = now.plus(STREAM_LEASE).toEpochMilli();
        db.write(sql -> {
            for (var id : ids)
                sql.update("UPDATE responses SET streaming_until = ? WHERE id = ? AND streaming_until IS NOT NULL",
                        until, id);
            return null;
        });
    }

    /** Whether some node still streams response {@code id} at {@code now}: it holds a lease that has not run out. */
    boolean streaming(String id, Instant now) {
        return db.read(sql -> sql.queryOne("SELECT streaming_until FROM responses WHERE id = ?",
                r -> r.getObject(1) == null ? null : r.getLong(1), id)).filter(until -> until >= now.toEpochMilli())
                .isPresent();
    }

    /** The latest response id of key {@code owner}'s conversation {@code name} (names are per key). */
    Optional<String> conversation(String owner, String name) {
        return db.read(sql -> sql.queryOne("SELECT response_id FROM conversations WHERE owner = ? AND name = ?",
                r -> r.getString(1), owner, name));
    }

    /**
     * Removes the response, its journal and the names pointing to it if {@code caller} owns it;
     * false when it did not exist or is another key's (checked and removed in one transaction).
     */
    boolean delete(String id, Caller caller) {
        return db.write(sql -> {
            var owner = sql.queryOne("SELECT owner FROM responses WHERE id = ?", r -> r.getString(1), id);
            return owner.isPresent() && caller.owns(owner.get()) && remove(sql, id);
        });
    }

    /**
     * Removes key {@code owner}'s conversation {@code name}: the name, and every response of its chain
     * (its latest response and that one's parents, while they are {@code owner}'s) with their journals,
     * in one transaction. Returns how many responses were removed, or empty when {@code owner} has no
     * such name.
     */
    Optional<Integer> deleteConversation(String owner, String name) {
        return db.write(sql -> {
            var head = sql.queryOne("SELECT response_id FROM conversations WHERE owner = ? AND name = ?",
                    r -> r.getString(1), owner, name);
            if (head.isEmpty()) return Optional.<Integer>empty();
            int removed = 0;
            for (var id : ChainWalk.ids(sql, head.get(), owner)) if (remove(sql, id)) removed++;
            sql.update("DELETE FROM conversations WHERE owner = ? AND name = ?", owner, name);
            return Optional.of(removed);
        });
    }

    /**
     * Boot, before any request: fills the list columns ({@code V5__response_list.sql}) of rows saved
     * before they existed, from the envelope (status, model, {@code previous_response_id}, output) and
     * the row's own transcript messages (the last user input). A row whose envelope no longer parses is
     * dropped, as a read would drop it. Returns how many rows were filled.
     */
    int fillSummaries() {
        return db.write(sql -> {
            var rows = sql.query("""
                    SELECT id, envelope, transcript, chain_id, base_seq, last_seq FROM responses WHERE status IS NULL""",
                    r -> new Object[] {r.getString(1), r.getString(2), r.getString(3), r.getString(4),
                            r.getObject(5) == null ? null : r.getLong(5), r.getObject(6) == null ? null : r.getLong(6)});
            int filled = 0;
            for (var row : rows) {
                var id = (String) row[0];
                JsonNode envelope;
                try {
                    envelope = json.readTree((String) row[1]);
                } catch (Exception e) {
                    remove(sql, id); // a corrupt row is dropped, as on read
                    continue;
                }
                List<Message> own;
                try {
                    own = row[3] == null ? json.readValue((String) row[2], MESSAGES)
                            : ownMessages(sql, (String) row[3], (Long) row[4], (Long) row[5]);
                } catch (Exception e) {
                    own = List.of(); // no input preview; the transcript is judged when the chain is continued
                }
                var summary = ResponseSummary.of(envelope, own);
                sql.update("""
                        UPDATE responses SET status = ?, model = ?, previous_response_id = ?, input_preview = ?,
                            output_preview = ? WHERE id = ?""", summary.status(), summary.model(),
                        summary.previousResponseId(), summary.inputPreview(), summary.outputPreview(), id);
                filled++;
            }
            return filled;
        });
    }

    /** The messages a chained row added itself ({@code base_seq+1 … last_seq}): its input and its run's. */
    private List<Message> ownMessages(Sql sql, String chainId, Long baseSeq, Long lastSeq) throws Exception {
        var rows = sql.query("""
                SELECT message_json FROM response_messages WHERE chain_id = ? AND seq > ? AND seq <= ? ORDER BY seq""",
                r -> r.getString(1), chainId, baseSeq == null ? 0L : baseSeq, lastSeq == null ? 0L : lastSeq);
        var messages = new ArrayList<Message>(rows.size());
        for (var row : rows) messages.add(json.readValue(row, Message.class));
        return messages;
    }

    /** Drops a row that no longer reads (corrupt envelope or transcript), whoever owns it. */
    private void drop(String id) {
        db.write(sql -> remove(sql, id));
    }

    /** Appends one sent frame to the response's journal and wakes this process's readers of it ({@link #awaitFrames}). */
    void append(String id, long seq, String type, String frame) {
        append(id, List.of(new Frame(seq, type, frame)));
    }

    /** Appends {@code frames} (of response {@code id}) to its journal in one write, and wakes this process's readers of it. */
    void append(String id, List<Frame> frames) {
        if (frames.isEmpty()) return;
        db.write(sql -> {
            MultiRowInsert.insert(sql, "response_events", "response_id, seq, type, frame", "ON CONFLICT (response_id, seq) DO NOTHING",
                    frames.stream().map(f -> new Object[] {id, f.seq(), f.type(), f.json()}).toList());
            return null;
        });
        appended.wake(id);
    }

    /**
     * Waits up to {@code timeout} for a frame of {@code id} appended in this process after {@code generation}
     * ({@link #appendGeneration}); appends by another node are not signalled (readers poll for those).
     */
    void awaitFrames(String id, Object generation, Duration timeout) throws InterruptedException {
        appended.await(id, generation, timeout);
    }

    /** A token to pass to {@link #awaitFrames}: take it before reading the journal, so no append is missed. */
    Object appendGeneration(String id) {
        return appended.generation(id);
    }

    /**
     * Marks a cancel of background response {@code id} for the node running it (another one: {@link #cancelRequested});
     * false when the response is no longer {@code queued} or {@code in_progress}.
     */
    boolean requestCancel(String id) {
        return db.write(sql -> sql.update("UPDATE responses SET cancel_requested = ? WHERE id = ? AND status IN (?, ?)",
                clock.millis(), id, IN_PROGRESS, QUEUED) > 0);
    }

    /** The response an {@code Idempotency-Key} of {@code owner} started in the background, and that request's fingerprint. */
    record BackgroundKey(String responseId, String fingerprint) {}

    /** What key {@code key} of {@code owner} started, if it started a background response still stored. */
    Optional<BackgroundKey> backgroundKey(String owner, String key) {
        return db.read(sql -> sql.queryOne("SELECT response_id, fingerprint FROM background_keys WHERE owner = ? AND key = ?",
                r -> new BackgroundKey(r.getString(1), r.getString(2)), owner, key));
    }

    /** Records that {@code key} of {@code owner} starts response {@code responseId}; false when another request took it first. */
    boolean claimBackgroundKey(String owner, String key, String fingerprint, String responseId) {
        return db.write(sql -> sql.update("""
                INSERT INTO background_keys (owner, key, fingerprint, response_id) VALUES (?, ?, ?, ?)
                ON CONFLICT (owner, key) DO NOTHING""", owner, key, fingerprint, responseId) > 0);
    }

    /** Forgets a claim whose response never started (its create failed). */
    void releaseBackgroundKey(String owner, String key, String responseId) {
        db.write(sql -> sql.update("DELETE FROM background_keys WHERE owner = ? AND key = ? AND response_id = ?", owner, key,
                responseId));
    }

    /** Which of {@code ids} (responses this node runs) another node asked to cancel. */
    List<String> cancelRequested(Collection<String> ids) {
        if (ids.isEmpty()) return List.of();
        return db.read(sql -> {
            var marked = new ArrayList<String>();
            for (var id : ids)
                if (sql.queryOne("SELECT cancel_requested FROM responses WHERE id = ?",
                        r -> r.getObject(1) != null, id).orElse(false)) marked.add(id);
            return marked;
        });
    }

    /** The journal frames with {@code seq > afterSeq}, in order. */
    List<Frame> frames(String id, long afterSeq) {
        return db.read(sql -> sql.query(
                "SELECT seq, type, frame FROM response_events WHERE response_id = ? AND seq > ? ORDER BY seq",
                r -> new Frame(r.getLong(1), r.getString(2), r.getString(3)), id, afterSeq));
    }

    /** The highest journal sequence number of the response, or empty when it has no journal. */
    Optional<Long> lastSeq(String id) {
        return db.read(sql -> sql.queryOne("SELECT MAX(seq) FROM response_events WHERE response_id = ?",
                r -> r.getObject(1) == null ? null : r.getLong(1), id));
    }

    /**
     * Deletes the event journals of responses created before {@code cutoffEpochSecond}
     * ({@code responses.event_retention_hours}); replay then synthesizes their events from the
     * stored envelope. Returns the number of frames deleted.
     */
    int pruneJournals(long cutoffEpochSecond) {
        return db.write(sql -> sql.update("DELETE FROM response_events WHERE response_id IN "
                + "(SELECT id FROM responses WHERE created_at < ?)", cutoffEpochSecond));
    }

    private void evict(Sql sql) {
        long count = sql.queryOne("SELECT COUNT(*) FROM responses", r -> r.getLong(1)).orElse(0L);
        if (count <= maxStored) return;
        var victims = sql.query("SELECT id FROM responses ORDER BY accessed_at ASC LIMIT ?", r -> r.getString(1),
                count - maxStored);
        for (var victim : victims) remove(sql, victim);
    }

    /**
     * Removes the row, re-pointing the responses that continued it at its own parent (so a chain
     * stays connected across a removed turn), then the chain messages no remaining response reaches.
     */
    private boolean remove(Sql sql, String id) {
        var chainId = chainOf(sql, id);
        var parent = sql.queryOne("SELECT parent_id FROM responses WHERE id = ?", r -> r.getString(1), id).orElse(null);
        sql.update("UPDATE responses SET parent_id = ? WHERE parent_id = ?", parent, id);
        sql.update("DELETE FROM response_events WHERE response_id = ?", id);
        sql.update("DELETE FROM conversations WHERE response_id = ?", id);
        sql.update("DELETE FROM background_keys WHERE response_id = ?", id);
        var removed = sql.update("DELETE FROM responses WHERE id = ?", id) > 0;
        if (chainId != null) chain.prune(sql, chainId);
        return removed;
    }

    private static String chainOf(Sql sql, String id) {
        return sql.queryOne("SELECT chain_id FROM responses WHERE id = ?", r -> r.getString(1), id).orElse(null);
    }
}
