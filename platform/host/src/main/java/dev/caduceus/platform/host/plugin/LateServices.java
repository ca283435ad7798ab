package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import java.util.Objects;
import java.util.Optional;

/**
 * The "after boot" services of {@link dev.caduceus.spi.PlatformContext}: they exist only once the
 * registries are frozen (boot step 6). Before {@link #bind}, every getter throws
 * {@link IllegalStateException}. Thread-safe (bound once, then read-only).
 */
public final class LateServices {
    private volatile ToolCatalog tools;
    private volatile Deployment deployment;
    private volatile PluginServices services;
    private volatile Runs runs;
    private volatile Sessions sessions;
    private volatile dev.caduceus.spi.agent.ToolCalls toolCalls;
    private volatile dev.caduceus.spi.model.Models models;

    /**
     * Binds the frozen views and the plugins' services ({@link Registries#services()}); called once
     * by the platform when the registries are frozen.
     */
    public void bind(ToolCatalog tools, Deployment deployment, PluginServices services) {
        if (this.tools != null) throw new IllegalStateException("late services are already bound");
        this.services = Objects.requireNonNull(services, "services");
        this.deployment = deployment;
        this.tools = tools;
    }

    /** Binds the run service, the session transcripts and direct tool calls; called once, after {@link #bind}. */
    public void bindAgents(Runs runs, Sessions sessions, dev.caduceus.spi.agent.ToolCalls toolCalls) {
        if (this.runs != null) throw new IllegalStateException("agent services are already bound");
        this.runs = runs;
        this.sessions = sessions;
        this.toolCalls = toolCalls;
    }

    public dev.caduceus.spi.agent.ToolCalls toolCalls() {
        return require(toolCalls, "toolCalls()");
    }

    /** Binds the plain model calls; called once, with {@link #bindAgents}. */
    public void bindModels(dev.caduceus.spi.model.Models models) {
        if (this.models != null) throw new IllegalStateException("models are already bound");
        this.models = Objects.requireNonNull(models, "models");
    }

    public dev.caduceus.spi.model.Models models() {
        return require(models, "models()");
    }

    public Runs runs() {
        return require(runs, "runs()");
    }

    public Sessions sessions() {
        return require(sessions, "sessions()");
    }

    public ToolCatalog tools() {
        return require(tools, "tools()");
    }

    public Deployment deployment() {
        return require(deployment, "deployment()");
    }

    public PluginServices services() {
        return require(services, "service()");
    }

    private static <T> T require(T value, String name) {
        if (value == null)
            throw new IllegalStateException(name + " is usable only after boot (once every plugin has started)");
        return value;
    }
}
