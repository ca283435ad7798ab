package dev.caduceus.platform.plugin;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.agent.ResponseHistory;
import java.util.Optional;

/**
 * A contributed {@link ResponseHistory} that is called with its plugin's class loader as context
 * class loader, as {@code agent.PluginBound} does for model providers and
 * runtimes: the caller is another plugin's request thread, whose context loader is that plugin's.
 * Thread-safe as far as the contributed history is.
 */
record BoundResponseHistory(ResponseHistory history, ClassLoader loader) implements ResponseHistory {
    BoundResponseHistory {
        requireNonNull(history, "history");
        requireNonNull(loader, "loader");
    }

    static BoundResponseHistory of(Contribution<ResponseHistory> contribution) {
        return new BoundResponseHistory(contribution.value(), contribution.classLoader());
    }

    @Override
    public Optional<Conversation> load(String owner, String responseId) {
        try {
            return PluginCalls.with(loader, () -> history.load(owner, responseId));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // load() declares none; only a sneaky throw lands here
            throw new IllegalStateException(e);
        }
    }
}
