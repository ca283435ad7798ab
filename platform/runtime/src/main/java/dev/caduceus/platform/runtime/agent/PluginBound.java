package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.host.plugin.Contribution;
import dev.caduceus.platform.host.plugin.PluginCalls;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import java.util.function.Consumer;

/**
 * Wrappers that call a plugin's provider or runtime with the plugin's class loader as TCCL
 * (every call into plugin code runs with its own loader as TCCL). Stateless.
 */
final class PluginBound {
    private PluginBound() {}

    static ModelProvider provider(Contribution<ModelProvider> c) {
        return provider(c.value(), c.classLoader());
    }

    private static ModelProvider provider(ModelProvider provider, ClassLoader loader) {
        return new ModelProvider() {
            @Override
            public ModelProvider at(Endpoint endpoint) {
                return provider(unchecked(() -> PluginCalls.with(loader, () -> provider.at(endpoint))), loader);
            }

            @Override
            public String id() {
                return provider.id();
            }

            @Override
            public boolean configured() {
                return unchecked(() -> PluginCalls.with(loader, provider::configured));
            }

            @Override
            public void stream(ModelRequest request, Consumer<ModelEvent> sink, Cancellation cancel)
                    throws ModelException {
                try {
                    PluginCalls.run(loader, () -> provider.stream(request, sink, cancel));
                } catch (ModelException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    static AgentRuntime runtime(Contribution<AgentRuntime> c) {
        var runtime = c.value();
        var loader = c.classLoader();
        return new AgentRuntime() {
            @Override
            public String id() {
                return runtime.id();
            }

            @Override
            public RunResult execute(RunRequest request, RunContext context) throws Exception {
                return PluginCalls.with(loader, () -> runtime.execute(request, context));
            }

            @Override
            public boolean configured() {
                return unchecked(() -> PluginCalls.with(loader, runtime::configured));
            }
        };
    }

    /** {@link AgentRuntime#configured()} of {@code c}, asked in its plugin's class loader; a plugin that throws stops the boot. */
    static boolean configured(Contribution<AgentRuntime> c) throws dev.caduceus.platform.host.boot.BootException {
        try {
            return unchecked(() -> PluginCalls.with(c.classLoader(), c.value()::configured));
        } catch (RuntimeException e) {
            throw new dev.caduceus.platform.host.boot.BootException("Plugin " + c.pluginId() + "'s runtime "
                    + c.value().id() + " failed to say whether it is configured: " + e, 2, e);
        }
    }

    private static <T> T unchecked(java.util.concurrent.Callable<T> call) {
        try {
            return call.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
