package dev.caduceus.platform.runtime.assembly;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.schedule.TaskScheduler;
import dev.caduceus.platform.host.auth.ApiKey;
import dev.caduceus.platform.host.boot.Applied;
import dev.caduceus.platform.host.config.DeclaredSettings;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.health.GatewayState;
import dev.caduceus.platform.host.http.HttpServer;
import dev.caduceus.platform.host.plugin.BootedPlugins;
import dev.caduceus.platform.host.plugin.Registries;
import dev.caduceus.platform.host.plugin.ToolNotes;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.platform.runtime.agent.AgentServices;
import dev.caduceus.platform.runtime.cluster.Cluster;
import dev.caduceus.spi.Deployment;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The platform as {@link Assembly} built it: the configuration, the database, the started plugins and their
 * frozen registries, and, when it serves, the {@link Serving} parts. Immutable; {@link #close} stops it all in
 * reverse (serving first drains), once, from the thread that owns it.
 */
public final class Assembled implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Assembled.class);

    /**
     * What {@code serve} adds: Jetty listening, the gateway's state, the runtime, this node of the cluster.
     *
     * @param http       the HTTP server, listening
     * @param state      starting, running or draining, as {@code /health} reports it
     * @param agents     the run service, sessions, journal and model calls
     * @param cluster    this node among the nodes on the same database
     * @param deployment what this process serves, as plugins see it
     * @param apiKey     the admin key in force
     * @param toolNotes  the tools that need attention, for the banner and {@code /health/detailed}
     * @param scheduler  the plugins' and the platform's scheduled tasks
     */
    public record Serving(HttpServer http, GatewayState state, AgentServices agents, Cluster cluster,
                          Deployment deployment, ApiKey apiKey, ToolNotes toolNotes, TaskScheduler scheduler) {}

    private final PlatformConfig config;
    private final ObjectMapper json;
    private final Clock clock;
    private final Database database;
    private final BootedPlugins booted;
    private final Registries registries;
    private final DeclaredSettings settings;
    private final List<Applied> migrations;
    private final Optional<Serving> serving;
    private final Teardown teardown;

    Assembled(PlatformConfig config, ObjectMapper json, Clock clock, Database database, BootedPlugins booted,
              Registries registries, DeclaredSettings settings, List<Applied> migrations, Optional<Serving> serving,
              Teardown teardown) {
        this.config = config;
        this.json = json;
        this.clock = clock;
        this.database = database;
        this.booted = booted;
        this.registries = registries;
        this.settings = settings;
        this.migrations = List.copyOf(migrations);
        this.serving = serving;
        this.teardown = teardown;
    }

    public PlatformConfig config() { return config; }

    public ObjectMapper json() { return json; }

    /** The platform's clock (plugins' {@code ctx.clock()}, run and key timestamps). */
    public Clock clock() { return clock; }

    public Database database() { return database; }

    public BootedPlugins booted() { return booted; }

    public Registries registries() { return registries; }

    /** The configuration keys the started plugins declared, checked. */
    public DeclaredSettings settings() { return settings; }

    /**
     * The migrations this boot ran, per owner in the order they were checked (the platform first, then each
     * started plugin that keeps tables): what {@code caduceus db migrate} reports.
     */
    public List<Applied> migrations() { return migrations; }

    /** The serving parts; present for {@code serve} only. */
    public Optional<Serving> serving() { return serving; }

    /**
     * Graceful shutdown: when serving, stop admitting runs and requests (503), let live runs and in-flight
     * requests finish up to {@code server.drain_timeout_seconds}, cancel the runs still live and stop Jetty;
     * then the journal commits its last events, this node's lease goes, the scheduled tasks are cancelled, the
     * plugins stop in reverse order and the database closes.
     */
    @Override
    public void close() {
        serving.ifPresent(this::drain);
        teardown.close();
    }

    private void drain(Serving s) {
        LOG.info("Shutting down: draining runs and in-flight requests");
        s.state().set(GatewayState.State.DRAINING);
        var timeout = Duration.ofSeconds(config.server().drainTimeoutSeconds());
        var deadline = System.nanoTime() + timeout.toNanos();
        var runs = s.agents().runs();
        runs.beginDrain();
        var requests = s.http().beginDrain();
        try {
            runs.drain(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            requests.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            LOG.warn("Drain timeout reached; stopping with requests in flight");
        }
        s.http().stop();
    }
}
