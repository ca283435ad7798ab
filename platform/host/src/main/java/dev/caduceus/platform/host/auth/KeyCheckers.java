package dev.caduceus.platform.host.auth;

import dev.caduceus.platform.host.http.Authenticated;
import dev.caduceus.platform.host.http.HttpSettings;
import dev.caduceus.spi.http.Caller;
import java.util.Optional;

/**
 * The server's {@link HttpSettings.KeyCheck}: the admin key first (constant time), then, for a
 * token that looks like one ({@code cdk_…}), the named keys. Thread-safe.
 */
public final class KeyCheckers implements HttpSettings.KeyCheck {
    private final ApiKey admin;
    private final NamedKeys named;
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> requests =
            new java.util.concurrent.ConcurrentHashMap<>();

    public KeyCheckers(ApiKey admin, NamedKeys named) {
        this.admin = admin.retained();
        this.named = java.util.Objects.requireNonNull(named, "named");
    }

    @Override
    public Optional<Authenticated> authenticate(String presented) {
        var found = find(presented);
        found.ifPresent(a -> requests.computeIfAbsent(a.caller().name(), k -> new java.util.concurrent.atomic.LongAdder())
                .increment());
        return found;
    }

    private Optional<Authenticated> find(String presented) {
        if (admin.matches(presented)) return Optional.of(Authenticated.ADMIN);
        if (!NamedKeys.looksNamed(presented)) return Optional.empty();
        return named.find(presented).map(m -> new Authenticated(new Caller(m.name(), false,
                java.util.Set.copyOf(m.policy().families()), m.policy().modelName(), m.policy().limits(),
                java.util.Set.copyOf(m.policy().models())),
                m.policy().requestsPerMinute()));
    }

    /** Requests authenticated since the start, by key name. */
    public java.util.Map<String, Long> requestCounts() {
        var counts = new java.util.TreeMap<String, Long>();
        requests.forEach((name, n) -> counts.put(name, n.sum()));
        return counts;
    }
}
