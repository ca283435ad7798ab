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

    /** {@code owner}'s limits on model calls: its budget and tokens per minute. */
    default dev.caduceus.platform.runtime.spend.SpendLimits spendLimits(String owner) {
        return dev.caduceus.platform.runtime.spend.SpendLimits.NONE;
    }

    /** Why {@code owner} may not start a run now beyond its cap (its spend), or empty. */
    default java.util.Optional<dev.caduceus.spi.agent.RunRejectedException> refusal(String owner) {
        return java.util.Optional.empty();
    }

    /** These policies, with {@code spend} saying whether a key may start a run. */
    default OwnerPolicies withSpend(dev.caduceus.platform.runtime.spend.SpendLedger spend) {
        var base = this;
        return new OwnerPolicies() {
            @Override public boolean inForce(String owner) { return base.inForce(owner); }
            @Override public int maxConcurrentRuns(String owner) { return base.maxConcurrentRuns(owner); }
            @Override public List<String> toolsets(String owner) { return base.toolsets(owner); }
            @Override public dev.caduceus.platform.runtime.spend.SpendLimits spendLimits(String owner) {
                return base.spendLimits(owner);
            }
            @Override public java.util.Optional<dev.caduceus.spi.agent.RunRejectedException> refusal(String owner) {
                return spend.refusal(owner);
            }
        };
    }
}
