package dev.caduceus.support.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.agent.RunResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The in-memory {@code Idempotency-Key} cache of non-streaming agent requests, one
 * instance per endpoint family (chat, Responses):
 * the same key with the same fingerprint reuses the agent result, concurrent identical requests share
 * one computation, a different fingerprint runs again and replaces the entry. Entries live
 * {@code ttl} after completion, at most {@code maxEntries} (oldest evicted); exceptions are never
 * cached. Best effort, lost on restart. Thread-safe.
 */
public final class IdempotencyCache {
    /** The prototype {@link #sha256} clones. */
    private static final MessageDigest SHA_256 = newSha256();
    private final Clock clock;
    private final Duration ttl;
    private final int maxEntries;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();

    public IdempotencyCache(Clock clock, Duration ttl, int maxEntries) {
        this.clock = clock;
        this.ttl = ttl;
        this.maxEntries = Math.max(1, maxEntries);
    }

    private static final class Entry {
        final String fingerprint;
        final CompletableFuture<RunResult> result = new CompletableFuture<>();
        volatile Instant completedAt;

        Entry(String fingerprint) {
            this.fingerprint = fingerprint;
        }
    }

    /** The cached result for {@code key} and {@code fingerprint}, or {@code compute}'s, which is then cached. */
    public RunResult resolve(String key, String fingerprint, Callable<RunResult> compute) throws Exception {
        while (true) {
            Entry entry;
            boolean owner;
            synchronized (this) {
                evictExpired();
                var existing = entries.get(key);
                owner = existing == null || !existing.fingerprint.equals(fingerprint);
                if (owner) {
                    entry = new Entry(fingerprint);
                    entries.remove(key);
                    entries.put(key, entry);
                    while (entries.size() > maxEntries) entries.remove(entries.keySet().iterator().next());
                } else {
                    entry = existing;
                }
            }
            if (owner) return compute(key, entry, compute);
            try {
                return entry.result.get();
            } catch (ExecutionException e) {
                // The computation threw, so nothing was cached: try again, possibly as the owner.
            }
        }
    }

    private RunResult compute(String key, Entry entry, Callable<RunResult> compute) throws Exception {
        try {
            var result = compute.call();
            entry.completedAt = clock.instant();
            entry.result.complete(result);
            return result;
        } catch (Exception | Error e) {
            synchronized (this) {
                entries.remove(key, entry);
            }
            entry.result.completeExceptionally(e);
            throw e;
        }
    }

    private void evictExpired() {
        var now = clock.instant();
        var expired = new ArrayList<String>();
        entries.forEach((k, e) -> {
            var done = e.completedAt;
            if (done != null && done.plus(ttl).isBefore(now)) expired.add(k);
        });
        expired.forEach(entries::remove);
    }

    public synchronized int size() {
        return entries.size();
    }

    /**
     * sha256 of the canonical JSON (sorted keys, no spaces) of the body {@code fields} that make a
     * request of the family, plus the {@code X-Hermes-Session-Id} and {@code X-Hermes-Session-Key}
     * values (either may be null).
     */
    public static String fingerprint(JsonNode body, List<String> fields, String sessionId, String sessionKey) {
        var subject = JsonNodeFactory.instance.objectNode();
        for (var field : fields) subject.set(field, body.get(field)); // missing → null
        subject.put("x_hermes_session_id", sessionId);
        subject.put("x_hermes_session_key", sessionKey);
        return sha256Hex(canonical(subject).toString());
    }

    private static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            var sorted = JsonNodeFactory.instance.objectNode();
            var names = new ArrayList<String>();
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            for (var name : names) sorted.set(name, canonical(node.get(name)));
            return sorted;
        }
        if (node.isArray()) {
            var array = JsonNodeFactory.instance.arrayNode();
            node.forEach(item -> array.add(canonical(item)));
            return array;
        }
        return node;
    }

    /** Lowercase hex sha256 of the UTF-8 bytes of {@code text}. */
    public static String sha256Hex(String text) {
        return HexFormat.of().formatHex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * A fresh SHA-256 digest, cloned from {@link #SHA_256}, which is never used itself: a chat turn hashes its
     * session's text, and {@link MessageDigest#getInstance} looks the provider up each time.
     */
    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) { // not with the JDK's provider
            return newSha256();
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

}
