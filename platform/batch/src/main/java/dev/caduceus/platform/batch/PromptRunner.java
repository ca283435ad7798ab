package dev.caduceus.platform.batch;

import dev.caduceus.support.json.ToolJson;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.platform.runtime.agent.ToolSelection;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.support.reasoning.InlineReasoning;
import dev.caduceus.spi.model.ModelOptions;
import dev.caduceus.spi.tool.Tool;
import com.fasterxml.jackson.databind.JsonNode;
import dev.caduceus.platform.host.plugin.ToolCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one dataset entry: prepares its working directory, samples its toolsets,
 * starts an ephemeral agent run (no approval channel, no memory), collects each model call's
 * reasoning from the run's events, and turns the result into a {@link PromptOutcome} with its
 * trajectory or tombstone line (a prompt without reasoning under {@code --require_reasoning}). Thread-safe: any number of workers share one instance.
 */
final class PromptRunner {
    static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS");

    /** What every prompt of the run shares. */
    record Settings(String runName, String model, int maxTurns, String ephemeralSystemPrompt,
                    List<Message> prefill, ModelOptions options, boolean requireReasoning) {}

    private final Runs runs;
    private final ToolsetSampler sampler;
    private final Workspaces workspaces;
    private final Settings settings;
    private final ObjectMapper json;
    private final List<String> registeredTools;
    private final List<String> columns;
    private final ToolSelection selection;
    private final Set<RunHandle> live = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;
    private static final String STOPPED = "interrupted";
    /** What each set of sampled toolsets offered last, with its system entry (see {@link #offered}). */
    private final Map<List<String>, Offer> offers = new ConcurrentHashMap<>();

    /** The tools a prompt is offered and the trajectory's system entry that lists them. */
    private record Offer(List<Tool> tools, JsonNode systemEntry) {
        boolean offers(List<Tool> now) {
            if (now.size() != tools.size()) return false;
            for (int i = 0; i < now.size(); i++) if (now.get(i) != tools.get(i)) return false;
            return true;
        }
    }

    /** @param columns the sorted {@code tool_stats} columns (see {@code --tool_stats_schema}) */
    PromptRunner(Runs runs, ToolCatalog catalog, ToolsetSampler sampler, Workspaces workspaces, Settings settings,
                 ObjectMapper json, List<String> columns) {
        this.runs = runs;
        this.sampler = sampler;
        this.workspaces = workspaces;
        this.settings = settings;
        this.json = json;
        this.registeredTools = catalog.tools().stream().map(t -> t.spec().name()).sorted().toList();
        this.columns = List.copyOf(columns);
        this.selection = new ToolSelection(catalog, List.of());
    }

    /**
     * The tools {@code toolsets} offer now and their system entry: built again only when the catalog gives other
     * tools (an MCP server's changed), since writing the entry is most of a trajectory line's work.
     */
    private Offer offered(List<String> toolsets) {
        var tools = selection.select(toolsets);
        var known = offers.get(toolsets);
        if (known != null && known.offers(tools)) return known;
        var offer = new Offer(tools, ShareGpt.systemEntry(tools.stream().map(Tool::spec).toList()));
        if (offers.size() >= 256) offers.clear(); // a distribution samples a handful of sets; never grow without bound
        offers.put(List.copyOf(toolsets), offer);
        return offer;
    }

    /**
     * The prompt with its {@code files} placed in {@code workspace}'s {@code inputs/} and named after it, one line each
     * (as a file part of a request is); a file that cannot be read fails the prompt (retried on {@code --resume}).
     */
    static String withFiles(Dataset.Entry entry, Path workspace) throws IOException {
        if (entry.files().isEmpty()) return entry.prompt();
        var inputs = new dev.caduceus.support.files.FileInputs(workspace, java.util.Optional.empty(),
                dev.caduceus.spi.http.Caller.ADMIN_CALLER);
        var out = new StringBuilder(entry.prompt());
        for (var file : entry.files()) {
            if (!Files.isRegularFile(file)) throw new IOException("file not found: " + file);
            try (var in = Files.newInputStream(file)) {
                for (var part : inputs.attach(file.getFileName().toString(), in))
                    if (part instanceof dev.caduceus.spi.message.ContentPart.Text t) out.append("\n").append(t.text());
            }
        }
        return out.toString();
    }

    /**
     * Ctrl+C: the runs executing now, and any that starts from now on, are cancelled; each ends interrupted (its prompt
     * is not recorded, so a resume runs it again).
     */
    void stopAll() {
        stopped = true;
        for (var handle : live) handle.cancel(STOPPED);
    }

    List<String> registeredTools() {
        return registeredTools;
    }

    PromptOutcome run(Dataset.Entry entry, int batchNum) throws InterruptedException {
        int index = entry.promptIndex();
        String prompt;
        try {
            var workspace = workspaces.prepare(entry);
            prompt = withFiles(entry, workspace);
        } catch (Workspaces.WorkspaceException | IOException e) {
            return new PromptOutcome.Failed(index, e.getMessage());
        }
        var toolsets = sampler.sample(index);
        var offer = offered(toolsets);
        var messages = new ArrayList<Message>(settings.prefill());
        messages.add(Message.user(prompt));
        var request = new RunRequest(settings.model(), messages, settings.ephemeralSystemPrompt(), toolsets,
                Workspaces.taskId(index), null, settings.options(), settings.maxTurns(),
                Map.of("source", "batch", "batch_num", String.valueOf(batchNum)));
        RunResult result;
        var reasoning = new Reasoning();
        var events = new AtomicReference<RunSubscription>();
        var running = new AtomicReference<RunHandle>();
        try {
            // on this worker's thread: a run thread would only hand each event over to a worker that waits for it
            result = runs.call(request, handle -> {
                events.set(handle.subscribe(0));
                running.set(handle);
                live.add(handle);
                if (stopped) handle.cancel(STOPPED);
            });
            var log = events.get();
            while (!log.finished()) { // the run has ended: its events are all there, nothing waits
                var next = log.next(Duration.ZERO);
                if (next.isEmpty()) break;
                reasoning.accept(next.get().event());
            }
        } catch (RunRejectedException e) {
            return new PromptOutcome.Failed(index, e.getMessage());
        } catch (RuntimeException e) {
            return new PromptOutcome.Failed(index, e.toString());
        } finally {
            if (running.get() != null) live.remove(running.get());
            if (events.get() != null) events.get().close();
            workspaces.cleanUp(entry);
        }
        return classify(entry, batchNum, toolsets, offer, result, reasoning.perAssistant(result.messages()));
    }

    private PromptOutcome classify(Dataset.Entry entry, int batchNum, List<String> toolsets, Offer offer,
                                   RunResult result, List<String> thinking) {
        int index = entry.promptIndex();
        var reason = result.stopReason();
        if (reason == StopReason.INTERRUPTED) return new PromptOutcome.Interrupted(index);
        long assistants = result.messages().stream().filter(m -> m.role().equals("assistant")).count();
        if (reason.failed()) return new PromptOutcome.Failed(index, result.error() != null ? result.error() : reason.wireName());
        if (assistants == 0) return new PromptOutcome.Failed(index, "The agent produced no assistant message");
        var messages = new ArrayList<Message>();
        var reasoning = new ArrayList<String>();
        int withReasoning = 0, a = 0;
        for (var m : result.messages()) {
            if (!m.role().equals("assistant")) {
                messages.add(m);
                continue;
            }
            var moved = moveInlineReasoning(m, a < thinking.size() ? thinking.get(a) : null);
            a++;
            messages.add(moved.message());
            reasoning.add(moved.reasoning());
            if (ShareGpt.hasReasoning(moved.message(), moved.reasoning())) withReasoning++;
        }
        var stats = new PromptOutcome.Reasoning((int) assistants, withReasoning);
        if (settings.requireReasoning() && !stats.any()) {
            var tomb = JsonNodeFactory.instance.objectNode();
            tomb.put("prompt_index", index).put("discarded", "no_reasoning").put("prompt", entry.prompt());
            return new PromptOutcome.Discarded(index, ToolJson.compact(tomb));
        }
        var toolStats = ToolStats.of(messages, json);
        var line = JsonNodeFactory.instance.objectNode();
        line.put("prompt_index", index);
        line.set("conversations", ShareGpt.conversations(entry.prompt(), messages, reasoning, offer.systemEntry(), json));
        var metadata = line.putObject("metadata");
        metadata.put("batch_num", batchNum);
        metadata.put("timestamp", LocalDateTime.now().format(TIMESTAMP));
        metadata.put("model", settings.model());
        if (entry.image() != null) metadata.put("image", entry.image());
        if (entry.cwd() != null) metadata.put("cwd", entry.cwd());
        line.put("completed", reason.completed());
        line.put("partial", reason.partial());
        line.put("api_calls", (int) assistants);
        var used = line.putArray("toolsets_used");
        toolsets.forEach(used::add);
        line.set("tool_stats", toolStats.toolStats(columns));
        line.set("tool_error_counts", toolStats.errorCounts(columns));
        return new PromptOutcome.Success(index, ToolJson.compact(line), toolStats, stats);
    }

    /** An assistant message with its inline reasoning moved out, and the reasoning it is stored with. */
    record Moved(Message message, String reasoning) {}

    /**
     * Hermes' order: the reasoning the model returned (native fields, or a leading block
     * the provider moved while streaming) if it is not blank, else the inline blocks of the content; the
     * content without its blocks, stripped, either way.
     */
    static Moved moveInlineReasoning(Message m, String reported) {
        var split = InlineReasoning.split(m.text());
        var reasoning = reported != null && !InlineReasoning.strip(reported).isEmpty() ? reported : split.reasoning();
        var content = split.content().isEmpty() ? List.<dev.caduceus.spi.message.ContentPart>of()
                : List.<dev.caduceus.spi.message.ContentPart>of(new dev.caduceus.spi.message.ContentPart.Text(split.content()));
        return new Moved(new Message(m.role(), content, m.toolCalls(), m.toolCallId(), m.name()), reasoning);
    }

    /**
     * Splits the run's reasoning deltas per model call: the reasoning before the first tool call of an
     * assistant message belongs to that message; what is left at the end belongs to the final answer.
     */
    static final class Reasoning {
        private final Map<String, String> byFirstCall = new HashMap<>();
        private final java.util.Set<String> seenCalls = new java.util.HashSet<>();
        private final List<String> segments = new ArrayList<>();
        private final List<String> segmentCalls = new ArrayList<>();
        private final StringBuilder current = new StringBuilder();

        void accept(RunEvent event) {
            switch (event) {
                case RunEvent.ReasoningDelta r -> current.append(r.text());
                case RunEvent.ToolCallStarted s -> {
                    if (seenCalls.isEmpty() || !seenCalls.contains(s.callId())) {
                        segments.add(current.toString());
                        segmentCalls.add(s.callId());
                        current.setLength(0);
                    }
                    seenCalls.add(s.callId());
                }
                default -> { }
            }
        }

        /** The reasoning of each assistant message of {@code messages}, aligned with them. */
        List<String> perAssistant(List<Message> messages) {
            for (int i = 0; i < segments.size(); i++) byFirstCall.put(segmentCalls.get(i), segments.get(i));
            var out = new ArrayList<String>();
            var assigned = new java.util.HashSet<String>();
            for (var m : messages) {
                if (!m.role().equals("assistant")) continue;
                if (m.toolCalls().isEmpty()) {
                    out.add(current.toString());
                    continue;
                }
                String found = null;
                for (var call : m.toolCalls())
                    if (byFirstCall.containsKey(call.id()) && assigned.add(call.id())) {
                        found = found == null ? byFirstCall.get(call.id()) : found + byFirstCall.get(call.id());
                    }
                out.add(found);
            }
            return out;
        }
    }

    static Comparator<Path> deepestFirst() {
        return Comparator.reverseOrder();
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (var files = Files.walk(dir)) {
            for (var p : files.sorted(deepestFirst()).toList()) Files.deleteIfExists(p);
        }
    }
}
