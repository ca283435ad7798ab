package dev.caduceus.platform.host.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.support.services.ResponseHistory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LateServicesTest {
    private final LateServices late = new LateServices();

    /** A plugin's context over {@link #late}; only the late services are set. */
    private PlatformContext context() {
        return new PluginContextImpl(null, null, null, null, null, null, null, null, null, null, late, java.util.Map.of(), null, null);
    }

    private void bind(PluginServices services) {
        late.bind(LateServices.Bound.withoutRuntime(new ToolCatalogImpl(Map.of(), List.of()), null, services));
    }

    @Test
    void servicesAreUsableOnlyAfterBoot() {
        var e = assertThrows(IllegalStateException.class, () -> context().service(ResponseHistory.class));
        assertEquals("service() is usable only after boot (once every plugin has started)", e.getMessage());
        ResponseHistory history = (owner, id) -> Optional.empty();
        bind(PluginServices.of(List.of(new Contribution<Object>(history, "responses", getClass().getClassLoader()))));
        var found = context().service(ResponseHistory.class).orElseThrow();
        assertTrue(found.load("admin", "resp_1").isEmpty());
        assertSame(found, context().service(ResponseHistory.class).orElseThrow());
    }

    @Test
    void noContributedServiceIsEmptyAfterBoot() {
        bind(PluginServices.none());
        assertTrue(context().service(ResponseHistory.class).isEmpty());
    }

    @Test
    void bindsOnce() {
        bind(PluginServices.none());
        assertThrows(IllegalStateException.class, () -> bind(PluginServices.none()));
    }
}
