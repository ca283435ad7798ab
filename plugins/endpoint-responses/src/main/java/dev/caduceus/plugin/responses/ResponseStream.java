package dev.caduceus.plugin.responses;

import java.time.InstantSource;
import dev.caduceus.support.clienttools.ToolTranscript;

import dev.caduceus.support.stream.EventPump;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.support.stream.RunEventTranslator;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.http.ClientGoneException;
import dev.caduceus.spi.http.EventStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One streamed response, stored as it goes when {@code store} is set: created and in_progress, the run's tool calls and text
 * as output items, then exactly one terminal event. Text is coalesced by {@link TextBatch}; every
 * frame goes to the journal and snapshots go to the store when {@code store} is set (null otherwise).
 * A client that leaves cancels the run and leaves an {@code incomplete} snapshot. Confined to the
 * handler's thread.
 */
final class ResponseStream implements RunEventTranslator {
    private static final int ERROR_LIMIT = 500;
    private static final System.Logger LOG = System.getLogger(ResponseStream.class.getName());

    /** Keeps the server's side of a turn that ended with the caller's calls, before the caller can answer them. */
    @FunctionalInterface
    interface Handoff {
        void remember(List<Message.ToolCallRef> calls, List<Message> steps);
    }

    /** The first journal number of a background response's run: {@code response.created} and {@code response.queued} come before. */
    static final long BACKGROUND_FIRST_SEQ = 2;

    private final SavedTurn turn;
    private final ResponseStore store;
    private final Handoff handoff;
    private final InstantSource clock;
    private List<Message.ToolCallRef> clientCalls = List.of();
    private final List<ObjectNode> items = new ArrayList<>();
    private final Map<String, Integer> openCalls = new HashMap<>();
    private final boolean reasoning;
    /** Reasoning items of running tool calls ({@code reasoning} progress): call id → output index. */
    private final Map<String, Integer> openSteps = new java.util.LinkedHashMap<>();
    private final Map<Integer, StringBuilder> stepTexts = new HashMap<>();
    private final StringBuilder text = new StringBuilder();
    private EventWriter writer;
    private RunHandle run;
    private String messageId;
    private int messageIndex = -1;
    private int flushed;
    private boolean ended;
    private java.util.function.Supplier<java.util.Optional<dev.caduceus.support.services.FileLibrary>> files =
            java.util.Optional::empty;
    private boolean delivered;
    /** A taken-over run's {@code run.resumed} event: the events before it were seen before (0: not resumed). */
    private long resumedAt;
    /** In a taken-over run's events before its resume, the calls that started so far, in order. */
    private int callsSeen;
    /** The indexes of the {@code mcp_call} items, in the order their calls started. */
    private final List<Integer> callItems = new ArrayList<>();
    /** Message items the model was writing when a server stopped: shown on the stream, left out of the response. */
    private final java.util.Set<Integer> superseded = new java.util.HashSet<>();
    private java.util.function.BooleanSupplier leftLive = () -> false;

    /** With {@code reasoning}, each tool step is also a reasoning item with a summary (issue 20). */
    ResponseStream(SavedTurn turn, ResponseStore store, boolean reasoning, Handoff handoff, InstantSource clock) {
        this.turn = turn;
        this.clock = clock;
        this.store = store;
        this.reasoning = reasoning;
        this.handoff = handoff;
    }

    /** Streams {@code run} to {@code out} until its terminal event or the client leaves, then closes {@code out}. */
    void run(RunHandle run, EventStream out, EventPump pump) throws InterruptedException {
        stream(run, out, pump, 0);
    }

    /**
     * Runs a background response's {@code run} to its end with nobody attached: every frame goes to the journal
     * only (the store is required), numbered after the {@code response.created} and {@code response.queued} its
     * creation journaled.
     */
    void runDetached(RunHandle run, EventPump pump) throws InterruptedException {
        if (store == null) throw new IllegalStateException("a background response is stored");
        stream(run, DetachedStream.INSTANCE, pump, BACKGROUND_FIRST_SEQ);
    }

    private void stream(RunHandle run, EventStream out, EventPump pump, long firstSeq) throws InterruptedException {
        this.run = run;
        this.writer = new EventWriter(out, store, turn.envelope().id(), firstSeq, -1);
        follow(out, pump, () -> {
            var created = turn.envelope().build("in_progress", Envelope.JSON.arrayNode(), null, null);
            save(created, List.of());
            if (firstSeq == 0) writer.emit("response.created", ResponseEvents.response(created));
            writer.emit("response.in_progress", ResponseEvents.response(created.deepCopy()));
        });
    }

    /**
     * Goes on with a background response whose server stopped while its run was live, now that {@code run} was taken
     * over in this process. What the stream had sent is rebuilt from its journal ({@code restored}); the run's
     * events before its {@code run.resumed} (event {@code resumedSeq}) only add what those frames missed (a call's
     * start or end); the message the model was writing when the server stopped ends {@code incomplete} there, since
     * the model writes its answer again, and is left out of the response's output; the run's later events stream as
     * usual, numbered after the last frame. A response whose journal already ended is left as it is.
     */
    void resumeDetached(RunHandle run, long resumedSeq, ResumedFrames restored, EventPump pump)
            throws InterruptedException {
        if (store == null) throw new IllegalStateException("a background response is stored");
        if (restored.ended()) return;
        this.run = run;
        this.resumedAt = resumedSeq;
        restored.items().forEach(item -> items.add(item.deepCopy()));
        for (int i = 0; i < items.size(); i++) {
            var item = items.get(i);
            var type = item.path("type").asText();
            if (type.equals("mcp_call")) callItems.add(i);
            else if (type.equals("message") && item.path("status").asText().equals("in_progress")) {
                messageId = item.path("id").asText();
                messageIndex = i;
            } else if (type.equals("message")) superseded.add(i); // ended incomplete at an earlier resume
        }
        restored.summaries().forEach((index, summary) -> stepTexts.put(index, new StringBuilder(summary)));
        text.append(restored.text());
        flushed = text.length();
        this.writer = new EventWriter(DetachedStream.INSTANCE, store, turn.envelope().id(), restored.nextSeq(), -1);
        follow(DetachedStream.INSTANCE, pump, () -> {
            if (restored.inProgress()) return;
            var body = turn.envelope().build("in_progress", output(), null, null); // it was taken before it started
            save(body, List.of());
            writer.emit("response.in_progress", ResponseEvents.response(body.deepCopy()));
        });
    }

    /** What a stream sends before its run's events. */
    @FunctionalInterface
    private interface Prologue {
        void send() throws ClientGoneException;
    }

    private void follow(EventStream out, EventPump pump, Prologue prologue) throws InterruptedException {
        try (out) {
            try {
                prologue.send();
                try (var batch = new TextBatch(run.subscribe(0), this)) {
                    var result = pump.pump(batch, this, writer.grouping());
                    if (result == EventPump.Result.CLIENT_GONE || batch.clientGone()) disconnected();
                    else if (!ended && !leftLive.getAsBoolean()) fail("Agent run ended without a result", Usage.ZERO);
                }
            } catch (ClientGoneException e) {
                disconnected();
            } catch (RuntimeException e) {
                // The run's journal or the store broke under us: end the stream the way a failure does.
                LOG.log(System.Logger.Level.ERROR, "Response " + turn.envelope().id() + ": its stream failed", e);
                run.cancel("stream failed");
                if (!ended) failQuietly();
            }
        }
    }

    @Override
    public void translate(JournalEntry entry, EventStream out) throws ClientGoneException {
        if (entry.seq() < resumedAt) {
            catchUp(entry.event());
            return;
        }
        if (entry.seq() == resumedAt) {
            resumed();
            return;
        }
        switch (entry.event()) {
            case RunEvent.TextDelta d -> text(d.text());
            case RunEvent.ToolCallStarted s -> toolStarted(s);
            case RunEvent.ToolCallFinished f -> toolFinished(f);
            case RunEvent.Completed c -> completed(c);
            case RunEvent.Failed f -> fail(f.message() == null || f.message().isBlank()
                    ? "Agent did not complete (" + reason(f.stopReason()) + ")" : f.message(), f.usage());
            case RunEvent.Cancelled c -> cancelled(c.reason(), c.usage());
            case RunEvent.Interrupted i -> cancelled(i.reason(), Usage.ZERO);
            // Not shown on the Responses wire (it has no frame for them).
            case RunEvent.Started s -> { }
            case RunEvent.ReasoningDelta r -> { }
            case RunEvent.ApprovalRequested a -> { }
            case RunEvent.ApprovalResolved a -> { }
            case RunEvent.Steered s -> { }
            case RunEvent.Resumed r -> { } // an earlier resume's (the last one is handled above)
            case RunEvent.ToolCallsRequired t -> clientCalls(t);
            case RunEvent.UsageReported u -> { }
        }
    }

    /**
     * An event of a taken-over run from before its resume: its frames were sent already, unless the server stopped
     * before it could send them; the calls' starts and ends are matched to their items by order, and what has no
     * frame yet is sent now. Text is not: the model writes its message again.
     */
    private void catchUp(RunEvent event) throws ClientGoneException {
        switch (event) {
            case RunEvent.ToolCallStarted s when !openCalls.containsKey(s.callId()) -> {
                int call = callsSeen++;
                if (call >= callItems.size()) {
                    toolStarted(s); // no frame yet
                    return;
                }
                int index = callItems.get(call);
                if (!items.get(index).path("status").asText().equals("in_progress")) return;
                openCalls.put(s.callId(), index);
                if (index > 0 && stepTexts.containsKey(index - 1)) openSteps.put(s.callId(), index - 1);
            }
            case RunEvent.ToolCallFinished f when openCalls.containsKey(f.callId()) -> toolFinished(f);
            default -> { }
        }
    }

    /** The run goes on here: the message the model was writing ends incomplete, and its next text opens a new one. */
    private void resumed() throws ClientGoneException {
        if (messageId == null) return;
        flush();
        var partial = text.toString();
        writer.emit("response.output_text.done", ResponseEvents.textDone(messageId, messageIndex, partial));
        writer.emit("response.content_part.done", ResponseEvents.partDone(messageId, messageIndex, partial));
        items.set(messageIndex, Envelope.message(messageId, "incomplete", partial));
        writer.emit("response.output_item.done", ResponseEvents.item(messageIndex, items.get(messageIndex).deepCopy()));
        superseded.add(messageIndex);
        messageId = null;
        messageIndex = -1;
        text.setLength(0);
        flushed = 0;
    }

    /** Whether text is waiting for its batch to be sent. */
    boolean pending() {
        return flushed < text.length();
    }

    /** Sends the waiting text as one delta. */
    void flush() throws ClientGoneException {
        if (!pending()) return;
        var delta = text.substring(flushed);
        flushed = text.length();
        writer.emit("response.output_text.delta", ResponseEvents.textDelta(messageId, messageIndex, delta));
    }

    private void text(String delta) throws ClientGoneException {
        if (delta.isEmpty()) return;
        text.append(delta); // first, so a disconnect while opening the item still keeps the text
        openMessage();
    }

    private void openMessage() throws ClientGoneException {
        if (messageId != null) return;
        messageId = Envelope.newItemId("msg_");
        messageIndex = items.size();
        var item = Envelope.message(messageId, "in_progress", null);
        items.add(item);
        writer.emit("response.output_item.added", ResponseEvents.item(messageIndex, item.deepCopy()));
        writer.emit("response.content_part.added", ResponseEvents.partAdded(messageId, messageIndex));
    }

    private void toolStarted(RunEvent.ToolCallStarted s) throws ClientGoneException {
        if (openCalls.containsKey(s.callId())) return; // a taken-over run repeats a call that is safe to repeat
        flush();
        if (reasoning && !s.callId().isBlank() && !s.tool().startsWith("_")) openStep(s);
        var arguments = s.arguments() == null ? "{}" : ToolTranscript.argumentsText(s.arguments());
        var item = Envelope.mcpCall(Envelope.newItemId("mcp_"), "in_progress", s.tool(), arguments, null);
        var index = items.size();
        items.add(item);
        callItems.add(index);
        openCalls.put(s.callId(), index);
        writer.emit("response.output_item.added", ResponseEvents.item(index, item.deepCopy()));
    }

    /**
     * How to tell that a run whose events ended without a terminal one was left live by its server's shutdown, for
     * the next process to resume: its response is then left in progress.
     */
    ResponseStream withLeftLive(java.util.function.BooleanSupplier leftLive) {
        this.leftLive = leftLive;
        return this;
    }

    /** The uploads' library, for the annotations of the files the agent delivers (asked for when the turn ends). */
    ResponseStream withFiles(java.util.function.Supplier<java.util.Optional<dev.caduceus.support.services.FileLibrary>> library) {
        this.files = library;
        return this;
    }

    private void toolFinished(RunEvent.ToolCallFinished f) throws ClientGoneException {
        if (f.tool().equals(dev.caduceus.support.services.FileLibrary.DELIVER_TOOL) && !f.error()) delivered = true;
        flush();
        var index = openCalls.remove(f.callId());
        if (index == null) return; // unmatched completions are dropped
        var call = items.get(index).deepCopy().put("status", "completed").put("output", f.result() == null ? "" : f.result());
        items.set(index, call);
        writer.emit("response.output_item.done", ResponseEvents.item(index, call.deepCopy()));
        var step = openSteps.remove(f.callId());
        if (step != null) closeStep(step, (f.error() ? "✗ " : "✓ ")
                + String.format(java.util.Locale.ROOT, "%.1f s", f.durationMillis() / 1000.0) + "\n\n");
    }

    /**
     * The caller's own calls, as OpenAI streams function calls: per call, the item added (in progress, empty
     * arguments), its arguments as one delta, their done event, and the item done.
     */
    private void clientCalls(RunEvent.ToolCallsRequired t) throws ClientGoneException {
        flush();
        clientCalls = t.calls();
        for (var call : t.calls()) {
            var id = Envelope.newItemId("fc_");
            var arguments = ToolTranscript.argumentsText(call.arguments());
            var index = items.size();
            items.add(Envelope.functionCall(id, "in_progress", call.name(), "", call.id()));
            writer.emit("response.output_item.added", ResponseEvents.item(index, items.get(index).deepCopy()));
            writer.emit("response.function_call_arguments.delta", ResponseEvents.argumentsDelta(id, index, arguments));
            writer.emit("response.function_call_arguments.done", ResponseEvents.argumentsDone(id, index, arguments));
            items.set(index, Envelope.functionCall(id, "completed", call.name(), arguments, call.id()));
            writer.emit("response.output_item.done", ResponseEvents.item(index, items.get(index).deepCopy()));
        }
    }

    /** A reasoning item for a tool step: added, its summary part, and the start line as a delta. */
    private void openStep(RunEvent.ToolCallStarted s) throws ClientGoneException {
        var preview = s.argumentsPreview();
        var label = preview == null || preview.isBlank() ? s.tool() : s.tool() + ": " + preview;
        var emoji = s.emoji() == null || s.emoji().isBlank() ? "⚡" : s.emoji();
        var line = emoji + " " + label + "\n";
        var id = Envelope.newItemId("rs_");
        var index = items.size();
        items.add(Envelope.reasoning(id, line)); // what a snapshot holds while the step runs
        openSteps.put(s.callId(), index);
        stepTexts.put(index, new StringBuilder(line));
        writer.emit("response.output_item.added", ResponseEvents.item(index, Envelope.reasoning(id, null)));
        writer.emit("response.reasoning_summary_part.added", ResponseEvents.summaryPart(id, index, ""));
        writer.emit("response.reasoning_summary_text.delta", ResponseEvents.summaryDelta(id, index, line));
    }

    /** Ends a tool step's reasoning item with {@code tail} (the end line, or nothing). */
    private void closeStep(int index, String tail) throws ClientGoneException {
        var id = items.get(index).path("id").asText();
        var text = stepTexts.remove(index).append(tail).toString();
        items.set(index, Envelope.reasoning(id, text));
        if (!tail.isEmpty()) writer.emit("response.reasoning_summary_text.delta", ResponseEvents.summaryDelta(id, index, tail));
        writer.emit("response.reasoning_summary_text.done", ResponseEvents.summaryDone(id, index, text));
        writer.emit("response.reasoning_summary_part.done", ResponseEvents.summaryPart(id, index, text));
        writer.emit("response.output_item.done", ResponseEvents.item(index, items.get(index).deepCopy()));
    }

    /** Steps whose tool never reported back are closed as they are before the terminal event. */
    private void closeSteps() throws ClientGoneException {
        for (var index : List.copyOf(openSteps.values())) closeStep(index, "");
        openSteps.clear();
    }

    private void closeMessage(String status) throws ClientGoneException {
        closeSteps();
        if (messageId == null) return;
        flush();
        var full = text.toString();
        writer.emit("response.output_text.done", ResponseEvents.textDone(messageId, messageIndex, full));
        writer.emit("response.content_part.done", ResponseEvents.partDone(messageId, messageIndex, full));
        var done = Envelope.message(messageId, status, full);
        items.set(messageIndex, done);
        writer.emit("response.output_item.done", ResponseEvents.item(messageIndex, done.deepCopy()));
    }

    private void completed(RunEvent.Completed c) throws ClientGoneException {
        var reason = c.stopReason() == null ? StopReason.STOP : c.stopReason();
        var answer = c.output() == null ? "" : c.output();
        var usage = c.usage() == null ? Usage.ZERO : c.usage();
        if (reason == StopReason.TOOL_CALLS) {
            toolCallsCompleted(answer, usage);
            return;
        }
        if (reason.failed() || answer.isBlank()) {
            fail(c.error() != null && !c.error().isBlank() ? c.error()
                    : "Agent did not complete (" + reason.wireName() + ")", usage);
            return;
        }
        if (messageId == null) text(answer); // nothing was streamed: one delta with the whole answer
        closeMessage("completed");
        ended = true;
        var body = Envelope.completedAt(turn.envelope().build("completed", output(), usage, null), clock.instant().getEpochSecond());
        if (delivered) DeliveredFiles.annotate(body, files.get(), turn.owner(), run.id());
        save(body, produced(answer));
        writer.emit("response.completed", ResponseEvents.response(CompletedTruncation.apply(body)));
    }

    /** The turn ended with the caller's calls: completed, their items last; its steps kept for the continuation first. */
    private void toolCallsCompleted(String answer, Usage usage) throws ClientGoneException {
        if (messageId == null && !answer.isBlank()) text(answer);
        closeMessage("completed");
        ended = true;
        var steps = runMessages();
        handoff.remember(clientCalls, steps);
        var body = Envelope.completedAt(turn.envelope().build("completed", output(), usage, null), clock.instant().getEpochSecond());
        save(body, steps);
        writer.emit("response.completed", ResponseEvents.response(CompletedTruncation.apply(body)));
    }

    private void fail(String error, Usage usage) throws ClientGoneException {
        closeMessage("completed");
        ended = true;
        var message = error.length() > ERROR_LIMIT ? error.substring(0, ERROR_LIMIT) : error;
        var body = turn.envelope().build("failed", output(), usage, Envelope.error(message));
        save(body, List.of(Message.assistant(error)));
        writer.emit("response.failed", ResponseEvents.response(body));
    }

    /**
     * Server-side cancellation: the snapshot is {@code incomplete}, but a live stream never
     * sends {@code response.incomplete}, so the client gets {@code response.failed}.
     */
    private void cancelled(String reason, Usage usage) throws ClientGoneException {
        if (turn.envelope().background()) {
            backgroundCancelled(reason, usage);
            return;
        }
        if (CreateHandler.CANCEL_REASON.equals(reason)) {
            // The client left and the host noticed before this stream did: it is a disconnect, whose
            // journal ends without a terminal event, so a replay ends with response.incomplete (§8.7).
            ended = true;
            saveIncomplete();
            return;
        }
        closeMessage("incomplete");
        ended = true;
        var message = reason == null || reason.isBlank() ? "Interrupted" : reason;
        saveIncomplete();
        writer.emit("response.failed", ResponseEvents.response(turn.envelope().build("failed", output(),
                usage == null ? Usage.ZERO : usage, Envelope.error(message))));
    }

    /**
     * A background response's run stopped: {@code cancelled} (with {@code response.cancelled}) when its caller
     * cancelled it, else (the server shutting down) {@code failed}, since nobody left it.
     */
    private void backgroundCancelled(String reason, Usage usage) throws ClientGoneException {
        if (!BackgroundResponses.CANCEL_REASON.equals(reason)) {
            fail(reason == null || reason.isBlank() ? ResponseStore.SERVER_STOPPED : reason, usage == null ? Usage.ZERO : usage);
            return;
        }
        closeMessage("incomplete");
        ended = true;
        for (var item : items)
            if (item.path("status").asText().equals("in_progress")) item.put("status", "incomplete"); // a tool stopped mid-way
        var body = turn.envelope().build("cancelled", output(), usage == null ? Usage.ZERO : usage, null);
        save(body, text.isEmpty() ? List.of() : List.of(Message.assistant(text.toString())));
        writer.emit("response.cancelled", ResponseEvents.response(body));
    }

    private void disconnected() {
        run.cancel(CreateHandler.CANCEL_REASON);
        if (!ended) saveIncomplete();
    }

    /** Emitted items plus a message item holding the text so far. */
    private void saveIncomplete() {
        if (messageId != null && items.get(messageIndex).path("status").asText().equals("in_progress"))
            items.set(messageIndex, Envelope.message(messageId, "incomplete", text.toString()));
        var partial = text.isEmpty() ? List.<Message>of() : List.of(Message.assistant(text.toString()));
        save(turn.envelope().build("incomplete", output(), null, null), partial);
    }

    private void failQuietly() {
        try {
            fail(TurnOutput.INTERNAL_ERROR, Usage.ZERO);
        } catch (ClientGoneException ignored) {
            // Nobody is listening; the run was cancelled.
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "Response " + turn.envelope().id() + " could not be saved as failed", e);
        }
    }

    /** The turn's new messages: the run's messages, or the answer alone when the run reported none. */
    private List<Message> produced(String answer) {
        try {
            var result = run.await(); // the terminal event is in: this returns at once
            return TurnOutput.produced(RunResult.of(result.stopReason(), answer, result.usage(), null, null,
                    result.messages()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(Message.assistant(answer));
        } catch (RuntimeException e) {
            return List.of(Message.assistant(answer));
        }
    }

    /** The run's messages (its terminal event is in: this returns at once). */
    private List<Message> runMessages() {
        try {
            return run.await().messages();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /**
     * The emitted server steps (and reasoning) items in emission order, then the message item, then the caller's
     * function calls, as {@code response.completed} lists them.
     */
    private ArrayNode output() {
        var output = Envelope.JSON.arrayNode();
        var calls = new ArrayList<ObjectNode>();
        for (int i = 0; i < items.size(); i++) {
            if (i == messageIndex || superseded.contains(i)) continue;
            if (items.get(i).path("type").asText().equals("function_call")) calls.add(items.get(i).deepCopy());
            else output.add(items.get(i).deepCopy());
        }
        if (messageIndex >= 0) output.add(items.get(messageIndex).deepCopy());
        calls.forEach(output::add);
        return output;
    }

    private void save(ObjectNode body, List<Message> produced) {
        if (store != null)
            store.save(turn.snapshot(body, turn.envelope().createdAt()), turn.write(produced),
                    turn.conversation());
    }

    private static String reason(StopReason reason) {
        return reason == null ? "internal_error" : reason.wireName();
    }
}
