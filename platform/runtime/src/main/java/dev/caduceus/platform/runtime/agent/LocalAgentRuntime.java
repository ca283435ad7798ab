package dev.caduceus.platform.runtime.agent;

import dev.caduceus.spi.agent.AgentRuntime;
import dev.caduceus.spi.message.ContentPart;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelProvider;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.Tool;
import dev.caduceus.spi.tool.ToolCall;
import dev.caduceus.spi.tool.ToolSpec;
import dev.caduceus.support.services.WorkspaceWatcher;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent loop, runtime id {@code local}: builds the system prompt, calls the
 * model with the turn's tools, executes the requested tool calls, feeds the results back and stops
 * on a final answer, the iteration cap (after one last call without tools), truncation, an upstream
 * failure, an empty answer twice or a stop. Each way of stopping fixes the result's completed/partial/failed flags; see {@link TurnState}.
 *
 * <p>Threading: {@link #execute} runs on the run's thread, concurrently for different runs; the
 * instance is immutable.
 */
public final class LocalAgentRuntime implements AgentRuntime {
    static final String GRACE_PROMPT = "You've reached the maximum number of tool-calling iterations allowed. "
            + "Give your final answer now from what you have; do not call tools.";

    private final ModelProvider provider;
    private final ToolSelection tools;
    private final ToolDispatcher dispatcher;
    private final ToolBatch batch;
    private final SystemPrompts prompt;
    private final AgentSettings settings;
    private final ModelCaller caller;
    private final Redactor redactor;
    private final Clock clock;
    private final List<WorkspaceWatcher> watchers;
    private volatile Offered lastOffered;

    /** @param provider the selected model provider, or null when none is contributed */
    public LocalAgentRuntime(ModelProvider provider, ToolSelection tools, ToolDispatcher dispatcher,
                             SystemPrompt prompt, AgentSettings settings, Redactor redactor, Clock clock) {
        this(provider, tools, dispatcher, prompt, settings, redactor, clock, AgentMetrics.none());
    }

    /** @param metrics where model calls are counted */
    public LocalAgentRuntime(ModelProvider provider, ToolSelection tools, ToolDispatcher dispatcher,
                             SystemPrompt prompt, AgentSettings settings, Redactor redactor, Clock clock,
                             AgentMetrics metrics) {
        this(provider, tools, dispatcher, prompt, settings, redactor, clock, metrics, List.of());
    }

    /** @param watchers told before a run's first tool call and when that run ends ({@link RunWatches}) */
    public LocalAgentRuntime(ModelProvider provider, ToolSelection tools, ToolDispatcher dispatcher,
                             SystemPrompt prompt, AgentSettings settings, Redactor redactor, Clock clock,
                             AgentMetrics metrics, List<WorkspaceWatcher> watchers) {
        this(provider, tools, dispatcher, prompt, settings, redactor, clock, metrics, watchers,
                dev.caduceus.platform.runtime.spend.SpendLedger.inMemory(clock));
    }

    /** @param spend where each model call's usage is counted, and whether a run's key may still call the model */
    public LocalAgentRuntime(ModelProvider provider, ToolSelection tools, ToolDispatcher dispatcher,
                             SystemPrompt prompt, AgentSettings settings, Redactor redactor, Clock clock,
                             AgentMetrics metrics, List<WorkspaceWatcher> watchers,
                             dev.caduceus.platform.runtime.spend.SpendLedger spend) {
        this.watchers = List.copyOf(watchers);
        this.provider = provider;
        this.tools = tools;
        this.dispatcher = dispatcher;
        this.batch = new ToolBatch(dispatcher, settings.maxParallelTools(), redactor);
        this.prompt = new SystemPrompts(prompt);
        this.settings = settings;
        this.caller = provider == null ? null : new ModelCaller(provider, settings.retries(), redactor, metrics, settings.model(),
                spend);
        this.redactor = redactor;
        this.clock = clock;
    }

    @Override
    public String id() {
        return "local";
    }

    /** Its runs save each step ({@link RunContext#checkpoint}) and continue from them on another process. */
    @Override
    public boolean resumable() {
        return true;
    }

    /** Tool calls outside a turn, with this runtime's tools and dispatcher and the run service's key policies. */
    dev.caduceus.support.services.ToolCalls directCalls(OwnerPolicies policies) {
        return new DirectToolCalls(tools, dispatcher, policies);
    }

    @Override
    public RunResult execute(RunRequest request, RunContext ctx) throws InterruptedException {
        var scope = TurnScope.of(ctx, request);
        var selected = offered(tools.select(request.toolsets()));
        var offered = selected.byName();
        var watches = new RunWatches(watchers, dispatcher.runContext(scope, ctx.cancellation()));
        RunResult result;
        try {
            result = loop(request, ctx, scope, offered, selected.specs(), watches);
        } finally {
            watches.afterRun();
        }
        if (result.stopReason() == StopReason.INTERRUPTED) dispatcher.runInterrupted(offered.values(), scope.sessionId());
        return result;
    }

    /**
     * The turn's tools by name, and their specs: kept from the last turn while the selection is the same tools
     * (most turns of a deployment offer the same ones), not made again each turn.
     */
    private Offered offered(List<Tool> selected) {
        var last = lastOffered;
        if (last != null && last.sameTools(selected)) return last;
        var byName = new LinkedHashMap<String, Tool>();
        selected.forEach(t -> byName.put(t.spec().name(), t));
        var made = new Offered(selected, Collections.unmodifiableMap(byName),
                byName.values().stream().map(Tool::spec).toList());
        lastOffered = made;
        return made;
    }

    /** A selection of tools, by name (in their order) and as specs. */
    private record Offered(List<Tool> tools, Map<String, Tool> byName, List<ToolSpec> specs) {
        boolean sameTools(List<Tool> other) {
            if (other.size() != tools.size()) return false;
            for (int i = 0; i < tools.size(); i++) if (other.get(i) != tools.get(i)) return false;
            return true;
        }
    }

    private RunResult loop(RunRequest request, RunContext ctx, TurnScope scope, Map<String, Tool> offered,
                           List<ToolSpec> offeredSpecs, RunWatches watches) throws InterruptedException {
        var model = request.model() != null ? request.model() : settings.model();
        if (caller == null || model == null)
            return RunResult.of(StopReason.UPSTREAM_ERROR, null, Usage.ZERO, "model_not_configured",
                    RunService.MODEL_NOT_CONFIGURED, List.of());
        var client = new ClientCalls(request.clientTools(), redactor);
        var specs = client.offered(offeredSpecs);
        var sections = dispatcher.promptSections(offered.values(), scope.memoryScope());
        var system = Message.system(prompt.build(offered.keySet(), sections,
                dispatcher.workspaceShown(offered.values(), scope.sessionId()), clock.instant(), request.instructions()));
        int max = request.maxIterations() > 0 ? request.maxIterations() : settings.maxIterations();
        var turn = new TurnState(system, client.capResults(request.messages()), max);
        ctx.emit(new RunEvent.Started(model));
        var resumption = ctx.resumption();
        if (resumption != null) {
            var settled = resume(turn, resumption, offered, client, ctx, scope, watches);
            if (settled == null) return turn.interrupted(null);
            if (!settled.isEmpty()) return turn.result(StopReason.TOOL_CALLS, null, null);
        }
        boolean blankRetried = false;
        while (true) {
            if (ctx.cancellation().isCancelled()) return turn.interrupted(null);
            if (turn.apiCalls() == max) return graceCall(turn, model, client, request, ctx);
            var reply = call(turn, model, specs, client, request, ctx);
            switch (reply) {
                case ModelReply.Interrupted i -> { return turn.interrupted(i.partialText()); }
                case ModelReply.Failure f -> { return turn.failed(f); }
                case ModelReply.Answer a -> {
                    if (a.finish() == FinishReason.LENGTH) return turn.truncated(a.text());
                    if (!a.toolCalls().isEmpty()) {
                        var ran = runTools(turn, a, offered, client, ctx, scope, watches);
                        if (ran == null) return turn.interrupted(null);
                        if (!ran.isEmpty()) return turn.result(StopReason.TOOL_CALLS, a.text().isBlank() ? null : a.text(), null);
                        continue;
                    }
                    if (a.text().isBlank()) {
                        if (blankRetried) return turn.result(StopReason.EMPTY_RESPONSE, null,
                                "Model returned an empty response");
                        blankRetried = true;
                        continue;
                    }
                    turn.answer(a.text());
                    return turn.result(StopReason.STOP, a.text(), null);
                }
            }
        }
    }

    private ModelReply call(TurnState turn, String model, List<ToolSpec> specs, ClientCalls client, RunRequest request,
                            RunContext ctx) throws InterruptedException {
        boolean stream = settings.stream() && request.stream(); // nobody reads a non-streamed answer early
        var choice = specs.isEmpty() ? ModelRequest.ToolChoice.AUTO : client.choice(turn.apiCalls() == 0, specs);
        var reply = caller.call(new ModelRequest(model, turn.upstream(), specs, request.options(), stream, choice,
                specs.isEmpty() ? null : client.parallel()), ctx, request.owner());
        turn.countCall();
        if (reply instanceof ModelReply.Answer a && a.usage() != null)
            ctx.emit(new RunEvent.UsageReported(a.usage(), turn.addUsage(a.usage()), a.route(), a.deployment(),
                    a.costPico() / 1e12));
        return reply;
    }

    /** The last call, without tools, after the iteration cap; ends with ITERATION_LIMIT. */
    private RunResult graceCall(TurnState turn, String model, ClientCalls client, RunRequest request, RunContext ctx)
            throws InterruptedException {
        turn.prompt(Message.user(GRACE_PROMPT));
        var reply = call(turn, model, List.of(), client, request, ctx); // no tools: no tool choice either
        return switch (reply) {
            case ModelReply.Interrupted i -> turn.interrupted(i.partialText());
            case ModelReply.Failure f -> turn.failed(f);
            case ModelReply.Answer a -> {
                var text = a.text().isBlank() ? null : a.text();
                if (text != null) turn.answer(text);
                yield turn.result(StopReason.ITERATION_LIMIT, text, "Reached the iteration limit (" + turn.max() + ")");
            }
        };
    }

    /** Whether {@code tool} may change the workspace: any but a read-only one (an unknown name runs nothing). */
    private static boolean mayWrite(Tool tool) {
        return tool != null && tool.spec().risk() != dev.caduceus.spi.tool.ToolRisk.READ_ONLY;
    }

    /**
     * Appends the assistant message and one tool message per host call, which run here. The caller's own calls (with
     * the host's ids) are announced ({@code ToolCallsRequired}); a run with a tool output channel waits for their
     * outputs and goes on, any other returns them, and the turn ends with them. Empty: the turn goes on. Null when
     * the run was stopped (or nobody answered in time).
     */
    private List<Message.ToolCallRef> runTools(TurnState turn, ModelReply.Answer answer, Map<String, Tool> offered,
                                               ClientCalls client, RunContext ctx, TurnScope scope,
                                               RunWatches watches) throws InterruptedException {
        var refs = new ArrayList<Message.ToolCallRef>();
        var calls = new ArrayList<ToolCall>();
        var clients = new ArrayList<Message.ToolCallRef>();
        for (ModelEvent.ToolCall c : answer.toolCalls()) {
            if (client.isClients(c)) {
                var issued = client.issue(c);
                refs.add(issued);
                clients.add(issued);
            } else {
                refs.add(new Message.ToolCallRef(c.id(), c.name(), c.arguments()));
                calls.add(new ToolCall(c.id(), c.name(), c.arguments()));
            }
        }
        var content = answer.text().isEmpty() ? List.<ContentPart>of() : List.<ContentPart>of(new ContentPart.Text(answer.text()));
        var assistant = new Message("assistant", content, refs, null, null);
        turn.add(assistant, answer.text());
        ctx.checkpoint(assistant, turn.apiCalls(), turn.usage(), false); // committed with a call's start (ToolBatch)
        return settle(turn, calls, clients, offered, client, ctx, scope, watches);
    }

    /**
     * Runs the host's {@code calls} and waits for the caller's outputs of {@code clients} (see {@link #runTools}), each
     * result saved as it comes; then the budget notice and the steering that arrived meanwhile.
     */
    private List<Message.ToolCallRef> settle(TurnState turn, List<ToolCall> calls, List<Message.ToolCallRef> clients,
                                             Map<String, Tool> offered, ClientCalls client, RunContext ctx,
                                             TurnScope scope, RunWatches watches) throws InterruptedException {
        if (calls.stream().anyMatch(c -> mayWrite(offered.get(c.name())))) watches.beforeTools();
        var outcomes = calls.isEmpty() ? List.<ToolOutcome>of() : batch.run(calls, offered, ctx, scope,
                (call, outcome) -> ctx.checkpoint(toolMessage(call.id(), call.name(), outcome.content()), turn.apiCalls(),
                        turn.usage(), false));
        if (outcomes == null) return null;
        for (int i = 0; i < calls.size(); i++)
            turn.add(toolMessage(calls.get(i).id(), calls.get(i).name(), outcomes.get(i).content()), null);
        if (!clients.isEmpty()) {
            ctx.emit(new RunEvent.ToolCallsRequired(clients));
            if (!ctx.toolOutputChannel()) return clients; // the caller's results come with its next request
            var outputs = ctx.awaitToolOutputs(clients);
            if (outputs == null) return null;
            for (var call : clients) {
                var output = toolMessage(call.id(), call.name(), client.capped(outputs.get(call.id())));
                turn.add(output, null);
                ctx.checkpoint(output, turn.apiCalls(), turn.usage(), false);
            }
        }
        turn.budgetNotice();
        applySteering(turn, ctx);
        // The step's results are committed before the next model call: a run resumed elsewhere after this node dies
        // then knows the step finished, instead of telling the model its calls' effects are unknown (ClusterIT's kill
        // between steps). Only a resumable run has anything to commit here; its model call takes far longer anyway.
        ctx.commit();
        return List.of();
    }

    /** The steering that arrived meanwhile, as user messages, each saved (the run journaled run.steered on acceptance). */
    private static void applySteering(TurnState turn, RunContext ctx) {
        for (var steer : ctx.drainSteering()) {
            var message = Message.user(steer);
            turn.add(message, null);
            ctx.checkpoint(message, turn.apiCalls(), turn.usage(), false);
        }
    }

    private static Message toolMessage(String callId, String tool, String content) {
        return new Message("tool", List.of(new ContentPart.Text(content)), List.of(), callId, tool);
    }

    /**
     * Whether a call without a result may have run: its start is in the journal, or it is a hidden call (a name starting
     * with {@code _}), whose start is never journaled.
     */
    private static boolean mayHaveRun(Message.ToolCallRef ref, dev.caduceus.spi.agent.RunContext.Resumption saved) {
        return saved.startedCalls().contains(ref.id()) || ref.name().startsWith("_");
    }

    /** What the model is told of a tool call that was running when the server stopped, and was not run again. */
    static final String INTERRUPTED_CALL = "{\"error\": \"The server stopped while this call ran, and the run was resumed "
            + "on another process: its effects are unknown. It was not run again; check what it did before you repeat it.\"}";
    /** Added to the last tool result a resumed run's model sees first. */
    static final String RESUMED_NOTE = "\n\n[The server running this agent stopped and the run was resumed. Background "
            + "processes this run had started are gone.]";

    /**
     * Restores a resumed run's saved messages into {@code turn} and settles the last assistant message's calls that
     * have no result: a call that never started runs now; one that was waiting for an approval asks again; one that
     * started runs again only when its tool is {@linkplain ToolSpec#repeatable repeatable}, else the model is told it
     * was interrupted ({@link #INTERRUPTED_CALL}); the caller's own calls are announced again. Returns as
     * {@link #settle} does.
     */
    private List<Message.ToolCallRef> resume(TurnState turn, dev.caduceus.spi.agent.RunContext.Resumption saved,
                                             Map<String, Tool> offered, ClientCalls client, RunContext ctx,
                                             TurnScope scope, RunWatches watches) throws InterruptedException {
        turn.restore(saved.messages(), saved.modelCalls(), saved.usage());
        var calls = new ArrayList<ToolCall>();
        var clients = new ArrayList<Message.ToolCallRef>();
        for (var ref : turn.unanswered()) {
            var tool = offered.get(ref.name());
            if (tool == null && client.isClients(ref.name())) {
                clients.add(ref);
            } else if (mayHaveRun(ref, saved) && !saved.approvalPending().contains(ref.id())
                    && (tool == null || !tool.spec().repeatable())) {
                var message = toolMessage(ref.id(), ref.name(), INTERRUPTED_CALL);
                turn.add(message, null);
                ctx.emit(new RunEvent.ToolCallFinished(ref.id(), ref.name(), 0, true, INTERRUPTED_CALL,
                        ToolPreview.output(INTERRUPTED_CALL, redactor)));
                ctx.checkpoint(message, turn.apiCalls(), turn.usage(), false);
            } else {
                calls.add(new ToolCall(ref.id(), ref.name(), ref.arguments()));
            }
        }
        if (calls.isEmpty() && clients.isEmpty()) {
            turn.noteOnLastResult(RESUMED_NOTE);
            applySteering(turn, ctx); // accepted before the server stopped, not applied yet
            return List.of();
        }
        var settled = settle(turn, calls, clients, offered, client, ctx, scope, watches);
        if (settled != null && settled.isEmpty()) turn.noteOnLastResult(RESUMED_NOTE);
        return settled;
    }
}
