package dev.caduceus.platform.runtime.spend;

import dev.caduceus.platform.host.auth.Budget;
import java.util.Optional;

/**
 * A key's limits on model calls: its budget per period and its tokens per minute (0: none). Immutable.
 */
public record SpendLimits(Optional<Budget> budget, long tokensPerMinute) {
    public static final SpendLimits NONE = new SpendLimits(Optional.empty(), 0);

    public boolean none() {
        return budget.isEmpty() && tokensPerMinute <= 0;
    }
}
