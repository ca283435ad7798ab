package dev.caduceus.platform.host.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.plugin.Registries;

/**
 * The plugins booted without Jetty (every boot step up to freezing the registries), for commands that use the
 * catalog and the agent but serve nothing: {@code caduceus batch}. Built by {@link Boot#headless};
 * closing stops the plugins and closes the database. Confined to the thread that closes it.
 */
public final class HeadlessHost implements AutoCloseable {
    private final PlatformConfig config;
    private final Registries registries;
    private final ObjectMapper json;
    private final Runnable stop;

    HeadlessHost(PlatformConfig config, Registries registries, ObjectMapper json, Runnable stop) {
        this.config = config;
        this.registries = registries;
        this.json = json;
        this.stop = stop;
    }

    public PlatformConfig config() { return config; }

    public Registries registries() { return registries; }

    public ObjectMapper json() { return json; }

    @Override
    public void close() {
        stop.run();
    }
}
