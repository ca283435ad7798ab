package dev.caduceus.platform.host.plugin;

import dev.caduceus.spi.Deployment;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.Sessions;
import dev.caduceus.spi.model.Models;
import dev.caduceus.support.services.ToolCalls;
import java.util.Objects;

/**
 * The "after boot" services of {@link dev.caduceus.spi.PlatformContext}: they are made from what the plugins
 * contributed, so they exist only once every plugin has started and the registries are frozen (boot step 6),
 * while each plugin's context exists before its start. This is the platform's one forward reference: the
 * wiring point ({@code Assembly}) makes the contexts with an unbound instance and binds it once, in one call,
 * when the parts exist. Before {@link #bind}, and for a part the boot did not make (no runtime in
 * {@code caduceus plugins} or {@code batch}), the getter throws {@link IllegalStateException}. Thread-safe
 * (bound once, then read-only).
 */
public final class LateServices {
    /**
     * What the platform made after step 6. The runtime's parts are null in a boot that makes no runtime.
     *
     * @param tools      the frozen tool catalog
     * @param deployment what this process serves
     * @param services   the services plugins offer each other, found by type
     * @param runs       the run service, or null
     * @param sessions   the session transcripts, or null
     * @param toolCalls  direct tool calls, or null; the host offers them as a service found by type
     *                   ({@code service(ToolCalls.class)}), under the owner {@value LateServices#HOST}
     * @param models     the plain model calls, or null
     */
    public record Bound(ToolCatalog tools, Deployment deployment, PluginServices services, Runs runs,
                        Sessions sessions, ToolCalls toolCalls, Models models) {
        public Bound {
            Objects.requireNonNull(tools, "tools");
            Objects.requireNonNull(services, "services");
        }

        /** The registries' views alone: plugins booted without a runtime. */
        public static Bound withoutRuntime(ToolCatalog tools, Deployment deployment, PluginServices services) {
            return new Bound(tools, deployment, services, null, null, null, null);
        }
    }

    /** The owner the host's own services are listed under. */
    public static final String HOST = "core";

    private volatile Bound bound;

    /** Binds what the platform made; called once, by the wiring point. */
    public void bind(Bound bound) {
        Objects.requireNonNull(bound, "bound");
        synchronized (this) {
            if (this.bound != null) throw new IllegalStateException("late services are already bound");
            this.bound = bound.toolCalls() == null ? bound : new Bound(bound.tools(), bound.deployment(),
                    bound.services().with(HOST, bound.toolCalls()), bound.runs(), bound.sessions(), bound.toolCalls(),
                    bound.models());
        }
    }

    public Models models() {
        return require(bound("models()").models(), "models()");
    }

    public Runs runs() {
        return require(bound("runs()").runs(), "runs()");
    }

    public Sessions sessions() {
        return require(bound("sessions()").sessions(), "sessions()");
    }

    public ToolCatalog tools() {
        return bound("tools()").tools();
    }

    public Deployment deployment() {
        return require(bound("deployment()").deployment(), "deployment()");
    }

    public PluginServices services() {
        return bound("service()").services();
    }

    private Bound bound(String name) {
        var b = bound;
        if (b == null)
            throw new IllegalStateException(name + " is usable only after boot (once every plugin has started)");
        return b;
    }

    private static <T> T require(T value, String name) {
        if (value == null)
            throw new IllegalStateException(name + " is usable only after boot (once every plugin has started), "
                    + "in a process that runs agents");
        return value;
    }
}
