package dev.caduceus.plugin.console;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.PlatformPlugin;
import dev.caduceus.spi.http.EndpointFamily;
import java.util.List;

/** Contributes one endpoint family, {@code console}, at {@code /console}. */
public final class ConsolePlugin implements PlatformPlugin {

    @Override
    public List<EndpointFamily> endpoints(PlatformContext ctx) {
        return List.of(new ConsoleFamily(new ConsoleFiles(ConsolePlugin.class.getClassLoader())));
    }
}
