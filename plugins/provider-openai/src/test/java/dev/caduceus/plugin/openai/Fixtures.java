package dev.caduceus.plugin.openai;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.platform.host.outbound.OutboundClient;
import dev.caduceus.platform.host.outbound.ProxyRules;
import dev.caduceus.platform.testkit.TestHost;
import dev.caduceus.spi.tool.Cancellation;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.model.Models;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Shared builders for the provider tests: the real host with this plugin ({@link #host}), whose model
 * calls ({@link TestHost#models()}) reach the provider the plugin contributed; and, for the tests of the
 * provider class alone, settings values and the host's outbound client.
 */
final class Fixtures {
    static final Cancellation NEVER = new Signal();

    private Fixtures() {}

    /**
     * A host with this plugin and {@code model} settings as the environment gives them ({@code
     * model.protocol -> h2c} becomes {@code CADUCEUS__MODEL__PROTOCOL=h2c}), then {@code env} (name, value,
     * …); the start-up model probe is off, so only the provider talks to the upstream.
     */
    static TestHost host(Map<String, String> model, String... env) {
        var builder = TestHost.builder().plugins("provider-openai").env("CADUCEUS__MODEL__HEALTH_PROBE", "false");
        model.forEach((key, value) -> builder.env(variable(key), value));
        for (int i = 0; i + 1 < env.length; i += 2) builder.env(env[i], env[i + 1]);
        return builder.start();
    }

    /** The environment variable that sets configuration key {@code key}: {@code CADUCEUS__MODEL__TLS__CA_FILE}. */
    static String variable(String key) {
        return "CADUCEUS__" + key.toUpperCase(Locale.ROOT).replace(".", "__");
    }

    /** The host's real outbound client, no proxies; close it after the test. */
    static OutboundClient outbound() {
        return new OutboundClient(ProxyRules.direct(), "caduceus-test");
    }

    /** Connections the client holds (active and idle), over every destination. */
    static int connections(OutboundClient client) {
        return client.poolStats().stream().mapToInt(s -> s.active() + s.idle()).sum();
    }

    static ModelSettings settings(String baseUrl, String apiKey, boolean stream) {
        return new ModelSettings(baseUrl, apiKey, "test-model", Duration.ofSeconds(30), null, stream, false, null);
    }

    static ModelRequest request(boolean stream) {
        return new ModelRequest("test-model", List.of(Message.user("hi")), List.of(), ModelOptions.DEFAULTS, stream);
    }

    static List<ModelEvent> run(ModelProvider provider, ModelRequest request) throws ModelException {
        var events = new ArrayList<ModelEvent>();
        provider.stream(request, events::add, NEVER);
        return events;
    }

    /** One model call through the host, as a plugin makes it ({@code ctx.models()}). */
    static List<ModelEvent> run(Models models, ModelRequest request) throws ModelException {
        var events = new ArrayList<ModelEvent>();
        models.stream(request, events::add, NEVER);
        return events;
    }

    static List<String> texts(List<ModelEvent> events) {
        return events.stream().filter(e -> e instanceof ModelEvent.TextDelta)
                .map(e -> ((ModelEvent.TextDelta) e).text()).toList();
    }

    static JsonNodeFactory nodes() {
        return JsonNodeFactory.instance;
    }

    /** A settable {@link Cancellation}. */
    static final class Signal implements Cancellation {
        private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
        private volatile boolean cancelled;

        void cancel() {
            cancelled = true;
            for (var callback : callbacks) if (callbacks.remove(callback)) callback.run();
        }

        @Override public boolean isCancelled() { return cancelled; }

        @Override
        public AutoCloseable onCancel(Runnable callback) {
            callbacks.add(callback);
            if (cancelled && callbacks.remove(callback)) callback.run();
            return () -> callbacks.remove(callback);
        }
    }
}
