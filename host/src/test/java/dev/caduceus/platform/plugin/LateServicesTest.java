package dev.caduceus.platform.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.ResponseHistory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LateServicesTest {
    private final LateServices late = new LateServices();

    /** A plugin's context over {@link #late}; only the late services are set. */
    private PlatformContext context() {
        return new PluginContextImpl(null, null, null, null, null, null, null, null, null, null, null, late);
    }

    private void bind(Optional<ResponseHistory> history) {
        late.bind(new ToolCatalogImpl(Map.of(), List.of(), List.of()), null, history);
    }

    @Test
    void responseHistoryIsUsableOnlyAfterBoot() {
        var e = assertThrows(IllegalStateException.class, () -> context().responseHistory());
        assertEquals("responseHistory() is usable only after boot (once every plugin has started)", e.getMessage());
        ResponseHistory history = (owner, id) -> Optional.empty();
        bind(Optional.of(history));
        assertSame(history, context().responseHistory().orElseThrow());
    }

    @Test
    void noContributedHistoryIsEmptyAfterBoot() {
        bind(Optional.empty());
        assertTrue(context().responseHistory().isEmpty());
    }

    @Test
    void bindsOnce() {
        bind(Optional.empty());
        assertThrows(IllegalStateException.class, () -> bind(Optional.empty()));
    }
}
