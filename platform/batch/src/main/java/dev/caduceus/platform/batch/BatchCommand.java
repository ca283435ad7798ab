package dev.caduceus.platform.batch;

import dev.caduceus.platform.runtime.assembly.Assembly;
import dev.caduceus.platform.runtime.assembly.Assembled;
import dev.caduceus.platform.host.boot.BootOptions;
import dev.caduceus.platform.host.boot.BootMode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.platform.runtime.agent.AgentServices;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.config.PluginConfigImpl;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.support.services.BatchCatalog;
import dev.caduceus.support.services.BatchCatalog.Distribution;
import dev.caduceus.platform.host.plugin.ToolCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caduceus batch}: every flag in Hermes' snake_case and in kebab-case, checked
 * here (usage and configuration errors exit 2 before anything runs), then the plugins are booted
 * without Jetty against {@code <output_dir>/batch.db} and a {@link BatchRunner} does the work.
 */
@Command(name = "batch", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the agent over a JSONL dataset of prompts and write ShareGPT trajectories",
                "(compatible with Hermes' batch_runner.py). Output goes to data/<run_name>/.",
                "Exit status: 0 all done, 3 some prompts failed, 2 usage or configuration error,",
                "1 fatal error during the run, 130 interrupted."})
public final class BatchCommand implements Callable<Integer> {
    private static final Pattern RUN_NAME = Pattern.compile("[A-Za-z0-9._-]+");
    static final List<String> EFFORTS = List.of("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra");
    static final List<String> SORTS = List.of("price", "throughput", "latency");

    @Option(names = {"--dataset_file", "--dataset-file"}, paramLabel = "FILE", description = "JSONL dataset: one {\"prompt\": …} per line (required).")
    Path datasetFile;
    @Option(names = {"--batch_size", "--batch-size"}, paramLabel = "N", description = "Prompts per batch, >= 1 (required).")
    Integer batchSize;
    @Option(names = {"--run_name", "--run-name"}, paramLabel = "NAME", description = "[A-Za-z0-9._-]+; names the output directory (required).")
    String runName;
    @Option(names = {"--distribution"}, paramLabel = "NAME", description = "Toolset distribution (default: default); see --list_distributions.")
    String distribution;
    @Option(names = {"--model"}, paramLabel = "ID", description = "A model route of model.routes (its deployments and "
            + "fallbacks answer), or the upstream model id (default: model.name).")
    String model;
    @Option(names = {"--base_url", "--base-url"}, paramLabel = "URL", description = "Upstream base URL (default: model.base_url).")
    String baseUrl;
    @Option(names = {"--api_key", "--api-key"}, paramLabel = "KEY", description = "Upstream API key (default: model.api_key).")
    String apiKey;
    @Option(names = {"--max_turns", "--max-turns"}, paramLabel = "N", defaultValue = "10", description = "Agent iterations per prompt (default: 10).")
    int maxTurns;
    @Option(names = {"--num_workers", "--num-workers"}, paramLabel = "N", defaultValue = "4", description = "Batches running at once (default: 4).")
    int numWorkers;
    @Option(names = {"--resume"}, arity = "0..1", fallbackValue = "true", description = "Continue an existing run: skip finished prompts, retry failed ones.")
    boolean resume;
    @Option(names = {"--verbose"}, arity = "0..1", fallbackValue = "true", description = "Log sampled toolsets and each prompt's start.")
    boolean verbose;
    @Option(names = {"--list_distributions", "--list-distributions"}, arity = "0..1", fallbackValue = "true", description = "Print the distributions and exit.")
    boolean listDistributions;
    @Option(names = {"--ephemeral_system_prompt", "--ephemeral-system-prompt"}, paramLabel = "TEXT", description = "Added to every call's system prompt; never saved in trajectories.")
    String ephemeralSystemPrompt;
    @Option(names = {"--log_prefix_chars", "--log-prefix-chars"}, paramLabel = "N", defaultValue = "100", description = "Prompt preview length in log lines (default: 100).")
    int logPrefixChars;
    @Option(names = {"--providers_allowed", "--providers-allowed"}, paramLabel = "A,B", description = "Comma list → provider.only (OpenRouter).")
    String providersAllowed;
    @Option(names = {"--providers_ignored", "--providers-ignored"}, paramLabel = "A,B", description = "Comma list → provider.ignore (OpenRouter).")
    String providersIgnored;
    @Option(names = {"--providers_order", "--providers-order"}, paramLabel = "A,B", description = "Comma list → provider.order (OpenRouter).")
    String providersOrder;
    @Option(names = {"--provider_sort", "--provider-sort"}, paramLabel = "HOW", description = "price | throughput | latency → provider.sort (OpenRouter).")
    String providerSort;
    @Option(names = {"--max_tokens", "--max-tokens"}, paramLabel = "N", description = "max_tokens of every call.")
    Integer maxTokens;
    @Option(names = {"--reasoning_effort", "--reasoning-effort"}, paramLabel = "E", description = "none, minimal, low, medium, high, xhigh, max, ultra → reasoning: {enabled, effort}.")
    String reasoningEffort;
    @Option(names = {"--reasoning_disabled", "--reasoning-disabled"}, arity = "0..1", fallbackValue = "true", description = "reasoning: {\"effort\": \"none\"}; wins over --reasoning_effort.")
    boolean reasoningDisabled;
    @Option(names = {"--prefill_messages_file", "--prefill-messages-file"}, paramLabel = "FILE", description = "JSON array of {role, content} inserted after the system message of every call; never saved.")
    Path prefillMessagesFile;
    @Option(names = {"--max_samples", "--max-samples"}, paramLabel = "N", description = "Keep only the first N valid dataset entries.")
    Integer maxSamples;
    @Option(names = {"--config"}, paramLabel = "FILE", description = "Configuration file (default: $CADUCEUS_HOME/config.yaml).")
    Path config;
    @Option(names = {"--output_dir", "--output-dir"}, paramLabel = "DIR", description = "Output directory (default: data/<run_name>, relative to the current directory).")
    Path outputDir;
    @Option(names = {"--seed"}, paramLabel = "N", description = "Sampling seed (default: random, recorded and reused on resume).")
    Long seed;
    @Option(names = {"--overwrite"}, arity = "0..1", fallbackValue = "true", description = "Delete the run's output files first.")
    boolean overwrite;
    @Option(names = {"--require_reasoning", "--require-reasoning"}, arity = "0..1", fallbackValue = "true", defaultValue = "true", description = "Discard trajectories without reasoning (default: true).")
    boolean requireReasoning;
    @Option(names = {"--no_progress", "--no-progress"}, arity = "0..1", fallbackValue = "true", description = "No progress bar.")
    boolean noProgress;
    @Option(names = {"--tool_stats_schema", "--tool-stats-schema"}, paramLabel = "S", defaultValue = "hermes", description = "tool_stats columns: hermes (Hermes' full tool list plus ours, default) or installed (this installation's tools).")
    String toolStatsSchema;
    @Option(names = "--lenient", description = "Skip plugins that fail to load or start instead of stopping.")
    boolean lenient;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    /** The top-level command, whose environment holds the launcher's secrets; null when a test builds this alone. */
    @CommandLine.ParentCommand Parent main;

    /** What this command needs of the command line it is mounted in ({@code caduceus}, in the server). */
    public interface Parent {
        /** The environment commands read: the process's plus the launcher's secrets, the profile's and its .env's. */
        Map<String, String> environment();
    }

    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    /** A usage or configuration error: message and exit status. */
    static final class Refusal extends Exception {
        final int status;

        Refusal(String message, int status) {
            super(message);
            this.status = status;
        }
    }

    /**
     * Parser settings of the batch command line: a flag given twice takes the last value (as Hermes'
     * command line does), {@link #call} then prints a warning naming it.
     */
    public static CommandLine configure(CommandLine batch) {
        return batch.setOverwrittenOptionsAllowed(true);
    }

    /** One warning line per flag given more than once (either spelling counts), in command-line order. */
    List<String> repeatedFlagWarnings() {
        if (spec == null || spec.commandLine().getParseResult() == null) return List.of();
        var counts = new java.util.LinkedHashMap<CommandLine.Model.OptionSpec, Integer>();
        for (var arg : spec.commandLine().getParseResult().originalArgs()) {
            if (arg.equals("--")) break;
            if (!arg.startsWith("--")) continue;
            int eq = arg.indexOf('=');
            var option = spec.findOption(eq < 0 ? arg : arg.substring(0, eq));
            if (option != null) counts.merge(option, 1, Integer::sum);
        }
        var out = new ArrayList<String>();
        counts.forEach((option, n) -> {
            if (n <= 1) return;
            var name = option.names()[0];
            Object value = name.equals("--api_key") ? "(hidden)" : option.getValue();
            out.add("⚠️  " + name + " was given " + n + " times; using the last value: " + value);
        });
        return out;
    }

    @Override
    public Integer call() throws Exception {
        repeatedFlagWarnings().forEach(err::println);
        try {
            if (listDistributions) return list();
            return runBatch();
        } catch (Refusal r) {
            err.println(r.getMessage());
            return r.status;
        } catch (BootException e) {
            err.println("caduceus: " + e.getMessage());
            return e.exitCode();
        }
    }

    private Map<String, String> env() {
        return main != null ? main.environment() : System.getenv();
    }

    /**
     * Whether {@code --model} names a route of {@code model.routes} (docs/models.md): then each prompt's turn asks for
     * that route, with its deployments and fallbacks, and {@code model.name} stays the default route's; any other
     * name replaces {@code model.name}, as before. A configuration that does not load is reported by the boot.
     */
    private boolean namesRoute(String name) {
        try {
            return ConfigLoader.load(env(), Optional.ofNullable(config), java.util.Map.of()).config().tree()
                    .node("model.routes").map(routes -> routes.has(name)).orElse(false);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private BootOptions platformOptions(List<ConfigLoader.Flag> flags) {
        var home = System.getProperty("caduceus.app.home");
        return new BootOptions(Optional.ofNullable(config), flags, lenient, env(),
                home == null ? null : Path.of(home));
    }

    private int list() throws Exception {
        var scratch = Files.createTempDirectory("caduceus-batch");
        try (var host = Assembly.assemble(platformOptions(List.of()), new BootMode.Headless(scratch))) {
            var catalog = host.registries().tools();
            DistributionListing.print(out, batchData(host).distributions(), available(catalog));
            return BatchRunner.OK;
        } finally {
            PromptRunner.deleteTree(scratch);
        }
    }

    /** The flags checked and converted; {@link Refusal} (exit 2) for usage errors. */
    BatchOptions validate() throws Refusal {
        if (datasetFile == null) throw new Refusal("❌ Error: --dataset_file is required", 2);
        if (batchSize == null) throw new Refusal("❌ Error: --batch_size is required", 2);
        if (runName == null) throw new Refusal("❌ Error: --run_name is required", 2);
        if (batchSize < 1) throw new Refusal("❌ Error: --batch_size must be a positive integer", 2);
        if (!RUN_NAME.matcher(runName).matches())
            throw new Refusal("❌ Error: --run_name must match [A-Za-z0-9._-]+: " + runName, 2);
        if (numWorkers < 1) throw new Refusal("❌ Error: --num_workers must be a positive integer", 2);
        if (maxTurns < 1) throw new Refusal("❌ Error: --max_turns must be a positive integer", 2);
        if (maxSamples != null && maxSamples < 1) throw new Refusal("❌ Error: --max_samples must be a positive integer", 2);
        if (maxTokens != null && maxTokens < 1) throw new Refusal("❌ Error: --max_tokens must be a positive integer", 2);
        if (reasoningEffort != null && !EFFORTS.contains(reasoningEffort))
            throw new Refusal("❌ Error: --reasoning_effort must be one of " + String.join(", ", EFFORTS) + ": "
                    + reasoningEffort, 2);
        if (providerSort != null && !SORTS.contains(providerSort))
            throw new Refusal("❌ Error: --provider_sort must be one of " + String.join(", ", SORTS) + ": " + providerSort, 2);
        if (toolStatsSchema == null || toolStatsSchema.isBlank())
            throw new Refusal("❌ Error: --tool_stats_schema must be installed or hermes", 2);
        var prefill = prefillMessagesFile == null ? List.<String[]>of() : readPrefill(prefillMessagesFile);
        var dir = outputDir != null ? outputDir : Path.of("data", runName);
        return new BatchOptions(datasetFile, batchSize, runName, distribution == null ? "default" : distribution,
                distribution != null, maxTurns, numWorkers, resume, verbose, ephemeralSystemPrompt, logPrefixChars,
                commaList(providersAllowed), commaList(providersIgnored), commaList(providersOrder), providerSort,
                maxTokens, reasoningEffort, reasoningDisabled, prefill, maxSamples == null ? 0 : maxSamples,
                dir.toAbsolutePath().normalize(), seed, overwrite, requireReasoning, noProgress, toolStatsSchema);
    }

    private static List<String> commaList(String value) {
        if (value == null) return List.of();
        return java.util.Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static List<String[]> readPrefill(Path file) throws Refusal {
        JsonNode node;
        try {
            node = new ObjectMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new Refusal("❌ Error: cannot read --prefill_messages_file " + file + ": " + e.getMessage(), 2);
        }
        if (node == null || !node.isArray())
            throw new Refusal("❌ Error: --prefill_messages_file must hold a JSON array of {role, content}: " + file, 2);
        var out = new ArrayList<String[]>();
        for (var m : node) {
            if (!m.path("role").isTextual() || !m.path("content").isTextual())
                throw new Refusal("❌ Error: every prefill message needs a string role and content: " + file, 2);
            out.add(new String[] {m.path("role").asText(), m.path("content").asText()});
        }
        return out;
    }

    static Set<String> available(ToolCatalog catalog) {
        var out = new TreeSet<String>();
        for (var t : catalog.toolsets())
            if (!catalog.resolve(t.name()).isEmpty()) out.add(t.name());
        return out;
    }

    private int runBatch() throws Exception {
        var options = validate();
        var json = new ObjectMapper();
        Dataset dataset;
        try {
            dataset = Dataset.read(options.datasetFile(), options.maxSamples(), json);
        } catch (IOException | RuntimeException e) {
            throw new Refusal("❌ Error: cannot read --dataset_file " + options.datasetFile() + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage()), 2);
        }
        dataset.warnings().forEach(w -> err.println("⚠️  " + w));
        if (dataset.size() == 0) {
            err.println("❌ Error: no valid entries in " + options.datasetFile()
                    + (dataset.skipped() > 0 ? " (" + dataset.skipped() + " lines skipped)" : " (empty dataset)"));
            return BatchRunner.FATAL;
        }
        var folder = new RunFolder(options.outputDir());
        var shown = displayPath(options.outputDir());
        Checkpoint previous = null;
        if (!options.resume() && !options.overwrite() && folder.hasResults())
            throw new Refusal(shown + " already contains results. Use --resume to continue or --overwrite to start over.", 2);
        if (options.resume()) {
            if (Files.exists(folder.checkpoint())) {
                try {
                    previous = Checkpoint.read(folder.checkpoint(), options.runName(), json);
                } catch (IOException e) {
                    err.println("⚠️  checkpoint.json is unreadable (" + e.getMessage() + "); matching prompts by content");
                }
            } else if (!folder.hasResults()) {
                err.println("⚠️  --resume: no checkpoint or batch files in " + shown + "; starting a new run");
            }
            if (previous != null && previous.distribution != null && options.distributionGiven()
                    && !previous.distribution.equals(options.distribution()))
                throw new Refusal("❌ Error: --resume uses distribution '" + previous.distribution + "' from the checkpoint", 2);
            if (previous != null && previous.format != null && options.seed() != null && previous.seed != options.seed())
                throw new Refusal("❌ Error: --resume uses seed " + previous.seed + " from the checkpoint", 2);
        }
        if (options.overwrite()) folder.deleteResults();
        Files.createDirectories(options.outputDir());

        var flags = new ArrayList<ConfigLoader.Flag>();
        if (model != null && !namesRoute(model)) flags.add(new ConfigLoader.Flag("--model", "model.name", model));
        if (baseUrl != null) flags.add(new ConfigLoader.Flag("--base_url", "model.base_url", baseUrl));
        if (apiKey != null) flags.add(new ConfigLoader.Flag("--api_key", "model.api_key", apiKey));
        try (var host = Assembly.assemble(platformOptions(flags), new BootMode.Headless(options.outputDir()))) {
            return runWith(host, options, dataset, folder, previous, json);
        }
    }

    private int runWith(Assembled host, BatchOptions options, Dataset dataset, RunFolder folder, Checkpoint previous,
                        ObjectMapper json) throws Exception {
        var config = host.config();
        var catalog = host.registries().tools();
        var distributionName = previous != null && previous.distribution != null ? previous.distribution
                : options.distribution();
        var data = batchData(host);
        var spec = data.distributions().stream().filter(d -> d.name().equals(distributionName)).findFirst()
                .orElseThrow(() -> new Refusal("Unknown distribution '" + distributionName + "'. Available: "
                        + String.join(", ", data.distributions().stream().map(Distribution::name).sorted().toList()), 2));
        long chosenSeed = previous != null && previous.format != null ? previous.seed
                : options.seed() != null ? options.seed() : new SecureRandom().nextLong();
        var sampler = new ToolsetSampler(spec, available(catalog), chosenSeed);
        if (sampler.usable().isEmpty())
            throw new Refusal("Distribution '" + spec.name() + "' has no toolset available in this installation (missing: "
                    + String.join(", ", sampler.missing()) + ")", 2);
        if (!sampler.missing().isEmpty())
            err.println("⚠️  Distribution '" + spec.name() + "': toolsets not available here are skipped: "
                    + String.join(", ", sampler.missing()));
        var tools = PluginConfigImpl.toolsSection(config.tree());
        var workspaces = new Workspaces(config.workspace(), options.runName(),
                tools.bool("file.allow_outside_workspace", false), tools.string("terminal.backend", "local"));
        if (options.overwrite()) PromptRunner.deleteTree(workspaces.runRoot());
        var runs = AgentServices.batch(config, host.registries(), host.json(), env(), Clock.systemUTC(),
                workspaces::of);
        try {
            runs.checkReady();
        } catch (RunRejectedException e) {
            throw new Refusal(e.getMessage(), 2);
        }
        var modelName = model != null ? model : config.model().name().orElse(null);
        var prefill = options.prefill().stream().map(p -> new Message(p[0],
                List.of(new dev.caduceus.spi.message.ContentPart.Text(p[1])), List.of(), null, null)).toList();
        var settings = new PromptRunner.Settings(options.runName(), modelName, options.maxTurns(),
                options.ephemeralSystemPrompt(), prefill, modelOptions(options), options.requireReasoning());
        var columns = toolStatsColumns(catalog, data.toolStatsSchemas(), options.toolStatsSchema());
        var prompts = new PromptRunner(runs, catalog, sampler, workspaces, settings, host.json(), columns);

        var checkpoint = new Checkpoint(options.runName());
        var remaining = Resume.remaining(dataset, previous, folder, json, checkpoint, err);
        checkpoint.datasetSha256 = dataset.sha256();
        checkpoint.totalPrompts = dataset.size();
        checkpoint.distribution = spec.name();
        checkpoint.seed = chosenSeed;
        try (var log = BatchLog.open(folder)) {
            log.line("caduceus batch " + options.runName() + ": " + dataset.size() + " prompts, "
                    + remaining.length + " to run, batch size " + options.batchSize() + ", " + options.numWorkers()
                    + " worker(s), distribution '" + spec.name() + "', seed " + chosenSeed + ", model " + modelName
                    + ", tool_stats schema " + options.toolStatsSchema());
            return run(options, dataset, folder, checkpoint, remaining, prompts, modelName, json, spec, chosenSeed, log);
        }
    }

    private int run(BatchOptions options, Dataset dataset, RunFolder folder, Checkpoint checkpoint,
                    int[] remaining, PromptRunner prompts, String modelName, ObjectMapper json,
                    Distribution spec, long chosenSeed, BatchLog log) throws Exception {
        var runner = new BatchRunner(options, dataset, folder, checkpoint, remaining, prompts, modelName, json, err,
                Progress.stderrIsTerminal(), log);
        if (remaining.length == 0) {
            out.println("All prompts have already been processed!");
            runner.writeCheckpoint();
            var merge = runner.mergeAndWriteStatistics();
            out.println("📄 Trajectories in merged file: " + merge.trajectories());
            log.line("summary: all prompts had already been processed; " + merge.trajectories()
                    + " trajectories in " + merge.batchFiles() + " batch files");
            return checkpoint.failed.isEmpty() ? BatchRunner.OK : BatchRunner.SOME_FAILED;
        }
        out.println("🚀 " + options.runName() + ": " + remaining.length + " prompt(s) in batches of " + options.batchSize()
                + ", " + options.numWorkers() + " worker(s), distribution '" + spec.name() + "', seed " + chosenSeed);
        var finished = new CountDownLatch(1);
        var hook = new Thread(() -> {
            runner.stop();
            try {
                finished.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
            runner.writeFinalCheckpoint();
            err.println("\nInterrupted: checkpoint written; re-run with --resume to continue.");
            Runtime.getRuntime().halt(BatchRunner.INTERRUPTED);
        }, "caduceus-batch-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runner.run(out);
        } finally {
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                Thread.currentThread().join(); // the hook exits the process
            }
        }
    }

    /**
     * The sorted {@code tool_stats} columns: the installed tools, or for a contributed
     * schema its names and the installed tools together.
     */
    static List<String> toolStatsColumns(ToolCatalog catalog, List<BatchCatalog.ToolStatsSchema> schemas, String schema)
            throws Refusal {
        var installed = catalog.tools().stream().map(t -> t.spec().name()).toList();
        if (schema.equals("installed")) return installed.stream().sorted().toList();
        var sorted = schemas.stream().sorted(java.util.Comparator.comparing(BatchCatalog.ToolStatsSchema::name)).toList();
        var found = sorted.stream().filter(s -> s.name().equals(schema)).findFirst()
                .orElseThrow(() -> new Refusal("❌ Error: --tool_stats_schema must be installed or one of: "
                        + String.join(", ", sorted.stream().map(s -> s.name()).toList())
                        + " (got '" + schema + "')", 2));
        var all = new TreeSet<>(found.toolNames());
        all.addAll(installed);
        return List.copyOf(all);
    }

    /**
     * The distributions and tool-stats schemas the plugins offer as {@link BatchCatalog} services
     * (found by type: the batch runner knows no plugin), merged; a name two plugins use is refused.
     */
    static BatchCatalog batchData(Assembled host) throws Refusal {
        return merged(host.registries().services().all(BatchCatalog.class));
    }

    static BatchCatalog merged(List<BatchCatalog> offered) throws Refusal {
        var distributions = new java.util.TreeMap<String, Distribution>();
        var schemas = new java.util.TreeMap<String, BatchCatalog.ToolStatsSchema>();
        for (var catalog : offered) {
            for (var d : catalog.distributions())
                if (distributions.putIfAbsent(d.name(), d) != null)
                    throw new Refusal("Two plugins offer the distribution '" + d.name() + "'", 2);
            for (var s : catalog.toolStatsSchemas())
                if (schemas.putIfAbsent(s.name(), s) != null)
                    throw new Refusal("Two plugins offer the tool stats schema '" + s.name() + "'", 2);
        }
        var d = List.copyOf(distributions.values());
        var s = List.copyOf(schemas.values());
        return new BatchCatalog() {
            @Override public List<Distribution> distributions() { return d; }
            @Override public List<BatchCatalog.ToolStatsSchema> toolStatsSchemas() { return s; }
        };
    }

    static ModelOptions modelOptions(BatchOptions options) {
        var extra = JsonNodeFactory.instance.objectNode();
        if (!options.providersAllowed().isEmpty() || !options.providersIgnored().isEmpty()
                || !options.providersOrder().isEmpty() || options.providerSort() != null) {
            var provider = extra.putObject("provider");
            if (!options.providersAllowed().isEmpty()) options.providersAllowed().forEach(provider.putArray("only")::add);
            if (!options.providersIgnored().isEmpty()) options.providersIgnored().forEach(provider.putArray("ignore")::add);
            if (!options.providersOrder().isEmpty()) options.providersOrder().forEach(provider.putArray("order")::add);
            if (options.providerSort() != null) provider.put("sort", options.providerSort());
        }
        if (options.reasoningDisabled()) extra.putObject("reasoning").put("effort", "none");
        else if (options.reasoningEffort() != null)
            extra.putObject("reasoning").put("enabled", true).put("effort", options.reasoningEffort());
        return new ModelOptions(null, options.maxTokens(), null, extra);
    }

    private static String displayPath(Path dir) {
        var cwd = Path.of("").toAbsolutePath();
        return dir.startsWith(cwd) ? cwd.relativize(dir).toString() : dir.toString();
    }
}
