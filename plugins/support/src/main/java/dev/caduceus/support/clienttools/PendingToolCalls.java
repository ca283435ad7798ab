package dev.caduceus.support.clienttools;

import dev.caduceus.spi.message.Message;
import java.time.InstantSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's side of turns that ended with the client's own tool calls: the steps the client never saw (the
 * agent's calls of the server's tools and their results, before and beside the client's calls), kept under the ids
 * the host issued for the client's calls, so that the continuation that answers them shows the model the whole
 * turn. A continuation names the calls in its history (the assistant message with {@code tool_calls}); {@link #splice}
 * puts the kept steps in that message's place. Only the key that ran the turn finds its steps. Steps are kept for
 * {@code ttl} and at most {@code maxTurns} turns (the oldest go first); a continuation after that, or on another
 * node, is ordinary history: the model sees what the client sent. Thread-safe.
 */
public final class PendingToolCalls {
    /** How long a turn's side waits for its continuation by default. */
    public static final Duration DEFAULT_TTL = Duration.ofMinutes(30);
    /** How many turns are kept by default (the oldest go first). */
    public static final int DEFAULT_TURNS = 4096;

    private final InstantSource clock;
    private final Duration ttl;
    private final int maxTurns;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock; oldest first
    private final ArrayDeque<Turn> turns = new ArrayDeque<>();
    private final Map<String, Turn> byCallId = new HashMap<>();

    private record Turn(String owner, List<Message> steps, List<String> callIds, Instant expires) {}

    /** Turns kept for {@link #DEFAULT_TTL}, at most {@link #DEFAULT_TURNS}. */
    public PendingToolCalls(InstantSource clock) {
        this(clock, DEFAULT_TTL, DEFAULT_TURNS);
    }

    public PendingToolCalls(InstantSource clock, Duration ttl, int maxTurns) {
        this.clock = clock;
        this.ttl = ttl;
        this.maxTurns = maxTurns;
    }

    /** Keeps {@code steps} (the turn's messages, ending with the client's calls) for the continuation of {@code calls}. */
    public void remember(String owner, List<Message.ToolCallRef> calls, List<Message> steps) {
        if (calls.isEmpty()) return;
        var now = clock.instant();
        var turn = new Turn(owner, List.copyOf(steps), calls.stream().map(Message.ToolCallRef::id).toList(), now.plus(ttl));
        lock.lock();
        try {
            evict(now);
            while (turns.size() >= maxTurns) forget(turns.removeFirst());
            turns.addLast(turn);
            for (var id : turn.callIds()) byCallId.put(id, turn);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code messages} with each assistant message that calls tools whose ids this host issued to {@code owner}
     * replaced by the kept steps of that turn (once per turn).
     */
    public List<Message> splice(String owner, List<Message> messages) {
        List<Message> out = null;
        var now = clock.instant();
        for (int i = 0; i < messages.size(); i++) {
            var m = messages.get(i);
            var turn = m.role().equals("assistant") ? find(owner, m.toolCalls(), now) : null;
            if (turn != null && out == null) out = new ArrayList<>(messages.subList(0, i));
            if (out == null) continue;
            if (turn != null) out.addAll(turn.steps());
            else out.add(m);
        }
        return out == null ? messages : out;
    }

    /** Whether some of {@code calls} are of a turn this host keeps for {@code owner} (a continuation will splice it). */
    public boolean keeps(String owner, List<Message.ToolCallRef> calls) {
        return find(owner, calls, clock.instant()) != null;
    }

    /** How many turns are kept now. */
    public int size() {
        lock.lock();
        try {
            evict(clock.instant());
            return turns.size();
        } finally {
            lock.unlock();
        }
    }

    private Turn find(String owner, List<Message.ToolCallRef> calls, Instant now) {
        if (calls.isEmpty()) return null;
        lock.lock();
        try {
            for (var call : calls) {
                var turn = byCallId.get(call.id());
                if (turn != null && turn.owner().equals(owner) && turn.expires().isAfter(now)) return turn;
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the expired turns (the oldest; the rest expire later). */
    private void evict(Instant now) {
        while (!turns.isEmpty() && !turns.peekFirst().expires().isAfter(now)) forget(turns.removeFirst());
    }

    private void forget(Turn turn) {
        for (var id : turn.callIds()) byCallId.remove(id);
    }
}
