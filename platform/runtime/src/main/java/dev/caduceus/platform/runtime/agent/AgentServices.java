package dev.caduceus.platform.runtime.agent;

import dev.caduceus.platform.runtime.journal.InMemoryEventLog;
import dev.caduceus.platform.runtime.journal.RunJournal;
import java.time.Duration;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.plugin.Contribution;
import dev.caduceus.platform.host.plugin.Registries;
import dev.caduceus.platform.host.store.Database;
import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.model.ModelProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.Collection;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The runtime's part of the assembly (after boot step 6): selects the model provider (the single contributed one, or none) and the
 * runtime ({@code agent.runtime}: {@code local}, a plugin runtime's id, or {@code auto}, which means the plugin
 * runtime whose configuration is set, else local), and builds the {@link RunService} with its durable
 * {@link RunJournal}, the {@link SessionStore}, and the plain model calls ({@link HostModels}; none in
 * proxy mode, where the remote runs every turn).
 * Immutable.
 *
 * @param runtimeId the selected runtime id, for the deployment view and the banner
 */
public record AgentServices(RunService runs, SessionStore sessions, RunJournal journal, String runtimeId,
                            HostModels models, dev.caduceus.platform.runtime.spend.SpendLedger spend) {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AgentServices.class);

    /** The model routes when any is configured ({@code model.routes}, {@code model.deployments}, {@code model.fallbacks}). */
    public java.util.Optional<dev.caduceus.platform.runtime.routing.RouteTable> routes() {
        return models.routeTable();
    }


    /**
     * Builds the services of node {@code nodeId} of the nodes sharing {@code database}, whose journals wake each
     * other through {@code feed}; a selection the configuration cannot be met with stops the boot.
     *
     * @param knownSecrets secrets known at this start beyond the configuration and {@code env}, such as
     *                     the API key in force (generated or read from the key file): tool output masks them
     * @param policies     the named keys' run limits and toolsets
     */
    public static AgentServices create(PlatformConfig config, Registries registries, Database database,
                                       ObjectMapper json, Map<String, String> env, Clock clock,
                                       Collection<String> knownSecrets, dev.caduceus.spi.metrics.Metrics metrics,
                                       String nodeId, dev.caduceus.platform.runtime.journal.RunFeed feed,
                                       OwnerPolicies policies)
            throws BootException {
        return create(config, registries, database, json, env, clock, knownSecrets, metrics, nodeId, feed, policies,
                null, dev.caduceus.platform.runtime.journal.JournalListener.NONE);
    }

    /**
     * As above, with the deployment's {@code webhooks} (runs may name one) and the {@code listener} of the
     * run journal's commits (which writes the runs' webhook events).
     */
    public static AgentServices create(PlatformConfig config, Registries registries, Database database,
                                       ObjectMapper json, Map<String, String> env, Clock clock,
                                       Collection<String> knownSecrets, dev.caduceus.spi.metrics.Metrics metrics,
                                       String nodeId, dev.caduceus.platform.runtime.journal.RunFeed feed,
                                       OwnerPolicies policies, dev.caduceus.platform.host.webhooks.DeploymentWebhooks webhooks,
                                       dev.caduceus.platform.runtime.journal.JournalListener listener)
            throws BootException {
        var agentMetrics = AgentMetrics.on(metrics);
        var spend = new dev.caduceus.platform.runtime.spend.SpendLedger(database, policies::spendLimits, clock, metrics, webhooks);
        policies = policies.withSpend(spend);
        var sessions = new SessionStore(database, json, clock);
        var journal = new RunJournal(database, json, metrics, nodeId, feed, listener);
        var durability = new RunService.Durability(journal, Duration.ofSeconds(config.approvals().timeoutSeconds()),
                Duration.ofHours(config.retention().runsIdempotencyRetentionHours()), webhooks,
                new RunJournal.ResumePolicy(config.resume().enabled(), config.resume().maxResumes(), config.resume().window()),
                registries.services().all(dev.caduceus.spi.agent.Runs.Resumer.class)); // plugins that follow their runs
        var plugin = pluginRuntime(config, registries);
        if (plugin.isPresent())
            return new AgentServices(new RunService(plugin.get(), new InMemoryEventLog(), durability, sessions,
                    config.server().maxConcurrentRuns(), true, clock, agentMetrics, metrics, policies), sessions, journal,
                    plugin.get().id(), HostModels.none(), spend);
        var provider = routed(config, registries, provider(registries), env);
        var settings = config.model();
        var redactor = redactor(config, env, knownSecrets);
        var runtime = localRuntime(config, registries, json, redactor, clock, provider,
                sessionId -> config.workspace(), agentMetrics,
                registries.services().all(dev.caduceus.support.services.WorkspaceWatcher.class), spend);
        boolean ready = settings.configured() && provider != null && provider.configured();
        var models = new HostModels(provider, ready, settings.stream(), settings.configuredName(), redactor);
        return new AgentServices(new RunService(runtime, new InMemoryEventLog(), durability, sessions,
                config.server().maxConcurrentRuns(), ready, clock, agentMetrics, metrics, policies), sessions, journal, "local",
                models, spend);
    }

    /**
     * The run service of {@code caduceus batch} (plugins booted without Jetty): the local runtime with the tool
     * calls of each session in {@code workspaceOf(sessionId)}, ephemeral runs only, no transcripts, no
     * concurrency cap (the runner's {@code --num_workers} is the cap).
     */
    public static RunService batch(PlatformConfig config, Registries registries, ObjectMapper json,
                                   Map<String, String> env, Clock clock,
                                   java.util.function.Function<String, java.nio.file.Path> workspaceOf)
            throws BootException {
        var provider = routed(config, registries, provider(registries), env);
        var runtime = localRuntime(config, registries, json, redactor(config, env, List.of()), clock, provider,
                workspaceOf, AgentMetrics.none(), List.of(), // a batch's trajectories are its output: no file is delivered
                dev.caduceus.platform.runtime.spend.SpendLedger.inMemory(clock));
        boolean ready = config.model().configured() && provider != null && provider.configured();
        return new RunService(runtime, new InMemoryEventLog(), null, null, 0, ready, clock);
    }

    private static LocalAgentRuntime localRuntime(PlatformConfig config, Registries registries, ObjectMapper json,
                                                  Redactor redactor, Clock clock, ModelProvider provider,
                                                  java.util.function.Function<String, java.nio.file.Path> workspaceOf,
                                                  AgentMetrics metrics,
                                                  List<dev.caduceus.support.services.WorkspaceWatcher> watchers,
                                                  dev.caduceus.platform.runtime.spend.SpendLedger spend)
            throws BootException {
        var settings = config.model();
        var selection = new ToolSelection(registries.tools(), config.agent().toolsets(), registries.implicitToolsets());
        try {
            var notStarted = registries.plugins().stream()
                    .filter(p -> p.state() != dev.caduceus.spi.Deployment.State.STARTED).map(p -> p.id()).toList();
            selection.checkConfigured(notStarted).forEach(w -> LOG.warn("{}", w));
        } catch (IllegalArgumentException e) {
            throw new BootException(e.getMessage(), 2, e);
        }
        var catalog = registries.tools();
        var agent = config.agent();
        return new LocalAgentRuntime(provider, selection,
                new ToolDispatcher(catalog::loaderOf, json, redactor, workspaceOf, metrics),
                new SystemPrompt(identity(config)),
                new AgentSettings(settings.configuredName(), agent.maxIterations(), agent.maxParallelTools(), settings.stream(),
                        RetryPolicy.DEFAULT),
                redactor, clock, metrics, watchers, spend);
    }

    /**
     * The plugin runtime {@code agent.runtime} selects, or empty for the local agent loop: {@code local};
     * a contributed runtime's id; or {@code auto}, the contributed runtime whose configuration is set
     * ({@link AgentRuntime#configured()}), else local. With {@code auto}, {@code gateway.proxy_url} set and no
     * runtime configured (its plugin disabled), the boot stops rather than run the remote's turns here.
     */
    private static Optional<AgentRuntime> pluginRuntime(PlatformConfig config, Registries registries) throws BootException {
        var mode = config.agent().runtime();
        var contributed = registries.agentRuntimes();
        if (mode.equals("local")) return Optional.empty();
        if (!mode.equals("auto")) {
            for (Contribution<AgentRuntime> r : contributed)
                if (r.value().id().equals(mode)) return Optional.of(PluginBound.runtime(r));
            throw new BootException("agent.runtime is '" + mode + "', but no enabled plugin contributes that runtime "
                    + "(runtimes here: " + String.join(", ", runtimeIds(contributed)) + "); enable its plugin or set "
                    + "agent.runtime: auto or local", 2, null);
        }
        var configured = new ArrayList<Contribution<AgentRuntime>>();
        for (var r : contributed)
            if (PluginBound.configured(r)) configured.add(r);
        if (configured.size() > 1)
            throw new BootException("agent.runtime is 'auto', but several runtimes are configured ("
                    + String.join(", ", configured.stream().map(r -> r.value().id()).toList())
                    + "); name one in agent.runtime", 2, null);
        if (configured.size() == 1) return Optional.of(PluginBound.runtime(configured.getFirst()));
        if (config.gateway().proxyUrl().isPresent())
            throw new BootException("gateway.proxy_url (GATEWAY_PROXY_URL) is set, so agent.runtime 'auto' runs every "
                    + "turn on that server, but no enabled plugin contributes a runtime configured for it (runtimes here: "
                    + String.join(", ", runtimeIds(contributed)) + "); enable the plugin that relays to it or set "
                    + "agent.runtime: local", 2, null);
        return Optional.empty();
    }

    private static List<String> runtimeIds(List<Contribution<AgentRuntime>> contributed) {
        var ids = new ArrayList<String>(List.of("local"));
        contributed.forEach(r -> ids.add(r.value().id()));
        return ids;
    }

    private static ModelProvider provider(Registries registries) throws BootException {
        var providers = registries.modelProviders();
        if (providers.isEmpty()) return null;
        if (providers.size() > 1)
            throw new BootException("Several plugins contribute a model provider ("
                    + String.join(", ", providers.stream().map(Contribution::pluginId).toList())
                    + "); enable only one", 2, null);
        return PluginBound.provider(providers.getFirst());
    }

    /**
     * The configured provider behind the model routes ({@link dev.caduceus.platform.runtime.routing.RouteTable}): as it
     * is when no route, deployment or fallback is configured (one upstream: nothing to choose), else a
     * {@link dev.caduceus.platform.runtime.routing.RoutedProvider} over them.
     */
    private static ModelProvider routed(PlatformConfig config, Registries registries, ModelProvider primary,
                                        Map<String, String> env) {
        var tree = config.tree();
        java.util.function.Predicate<String> set = key -> tree.node(key).filter(n -> !n.isEmpty()).isPresent();
        java.util.function.Predicate<String> positive = key -> tree.node(key).filter(n -> n.asInt(0) > 0).isPresent();
        if (primary == null || !set.test("model.routes") && !set.test("model.deployments") && !set.test("model.fallbacks")
                && !set.test("model.price") && !positive.test("model.tpm") && !positive.test("model.context_window"))
            return primary;
        var contributed = registries.modelProviders();
        var table = dev.caduceus.platform.runtime.routing.RouteTable.from(config, primary,
                id -> contributed.stream().filter(c -> c.value().id().equals(id)).findFirst().map(PluginBound::provider),
                name -> java.util.Optional.ofNullable(env.get(name)));
        table.warnings().forEach(w -> LOG.warn("{}", dev.caduceus.platform.host.boot.BootSteps.withSource(w, config)));
        int cooldown = tree.node("model.cooldown_seconds").map(com.fasterxml.jackson.databind.JsonNode::asInt).orElse(5);
        return new dev.caduceus.platform.runtime.routing.RoutedProvider(primary, table,
                java.time.Duration.ofSeconds(Math.max(1, cooldown)), Clock.systemUTC());
    }

    /**
     * Every route of {@code config} over the enabled model provider, configured or not ({@code caduceus models test}).
     *
     * @throws BootException when no plugin contributes a model provider, or the routes are wrong
     */
    public static dev.caduceus.platform.runtime.routing.RouteTable routeTable(PlatformConfig config, Registries registries,
                                                                            Map<String, String> env) throws BootException {
        var primary = provider(registries);
        if (primary == null) throw new BootException("No enabled plugin contributes a model provider", 2, null);
        var contributed = registries.modelProviders();
        try {
            return dev.caduceus.platform.runtime.routing.RouteTable.from(config, primary,
                    id -> contributed.stream().filter(c -> c.value().id().equals(id)).findFirst().map(PluginBound::provider),
                    name -> java.util.Optional.ofNullable(env.get(name)));
        } catch (dev.caduceus.spi.config.ConfigException e) {
            throw new BootException(dev.caduceus.platform.host.boot.BootSteps.withSource(e, config), 2, e);
        }
    }

    private static String identity(PlatformConfig config) throws BootException {
        var file = config.agent().identityFile();
        if (file.isEmpty()) return SystemPrompt.CORE_IDENTITY;
        try {
            return Files.readString(java.nio.file.Path.of(file.get()));
        } catch (IOException | RuntimeException e) {
            throw new BootException("Cannot read agent.identity_file " + file.get() + ": " + e.getMessage(), 2, e);
        }
    }

    /**
     * Every secret this start knows: {@code knownSecrets}, the configuration's secret values
     * ({@link PlatformConfig#secretValues}), the secret-looking environment variables and whatever the
     * key file {@code $CADUCEUS_HOME/api_key} holds (the key itself, or what stands for it there).
     */
    static Redactor redactor(PlatformConfig config, Map<String, String> env, Collection<String> knownSecrets) {
        return Redactor.builder().addAll(knownSecrets).addAll(config.secretValues()).addEnvironment(env)
                .add(keyFile(config.home().resolve("api_key"))).build();
    }

    private static String keyFile(java.nio.file.Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file).strip() : null;
        } catch (IOException | RuntimeException e) {
            return null; // the key resolution reports an unreadable key file; nothing to mask from it here
        }
    }
}
