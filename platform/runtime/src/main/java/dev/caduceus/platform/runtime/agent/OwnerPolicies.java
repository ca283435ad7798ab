package dev.caduceus.platform.runtime.agent;

import java.util.List;

/**
 * What a key's policy says about its runs ({@code caduceus key add --toolsets, --max-concurrent-runs}):
 * looked up by the run's owner when the run is admitted. Thread-safe; may read the database.
 */
public interface OwnerPolicies {
    /** No key has a limit (the admin key, and hosts without named keys). */
    OwnerPolicies NONE = new OwnerPolicies() {
        @Override public int maxConcurrentRuns(String owner) { return 0; }
        @Override public List<String> toolsets(String owner) { return List.of(); }
        @Override public boolean inForce(String owner) { return true; }
    };

    /** Whether {@code owner} may still start runs: false for a revoked key (its jobs stop running). */
    boolean inForce(String owner);

    /** The most runs {@code owner} may have at once; 0: no limit of its own. */
    int maxConcurrentRuns(String owner);

    /** The only toolsets {@code owner}'s turns may offer; empty: no restriction. */
    List<String> toolsets(String owner);
}
