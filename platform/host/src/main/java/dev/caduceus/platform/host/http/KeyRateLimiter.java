package dev.caduceus.platform.host.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Requests per minute per key name: a token bucket per key, holding a minute's worth and refilled
 * continuously, so a key with {@code rpm} 60 may burst 60 requests and then send one a second.
 * Buckets are made on a key's first request and live as long as the server (one per key name).
 * Thread-safe.
 */
final class KeyRateLimiter {
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        double tokens;
        long refilledAt;
        int rpm;
    }

    KeyRateLimiter(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * Takes one request from {@code key}'s allowance of {@code rpm} per minute.
     *
     * @return 0 when the request may go on, else the seconds to wait before the next one may
     */
    long acquire(String key, int rpm) {
        if (rpm <= 0) return 0;
        var bucket = buckets.computeIfAbsent(key, k -> {
            var b = new Bucket();
            b.tokens = rpm;
            b.rpm = rpm;
            b.refilledAt = nanoTime.getAsLong();
            return b;
        });
        synchronized (bucket) {
            long now = nanoTime.getAsLong();
            if (bucket.rpm != rpm) { // the policy changed: start over with the new allowance
                bucket.rpm = rpm;
                bucket.tokens = Math.min(bucket.tokens, rpm);
            }
            double perNano = rpm / 60e9;
            bucket.tokens = Math.min(rpm, bucket.tokens + (now - bucket.refilledAt) * perNano);
            bucket.refilledAt = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - bucket.tokens) / perNano / 1e9));
        }
    }
}
