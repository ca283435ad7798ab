package dev.caduceus.platform.runtime.agent;

import static dev.caduceus.platform.runtime.agent.ScriptedModel.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.caduceus.spi.message.Message;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.StopReason;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.FinishReason;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelRequest;
import dev.caduceus.spi.tool.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalAgentRuntimeTest {
    static final dev.caduceus.spi.tool.Tool ADD = Tools.tool("add", true, 100_000, (c, ctx) ->
            new ToolResult.Ok("{\"sum\": " + (c.arguments().path("a").asInt() + c.arguments().path("b").asInt()) + "}"));

    @Test
    void plainAnswerCompletesWithUsageAndMessages() throws Exception {
        var model = new ScriptedModel().answer("Hello there");
        var run = new Harness(model).start("hi");
        var result = run.await();
        assertEquals(RunStatus.COMPLETED, result.status());
        assertEquals(StopReason.STOP, result.stopReason());
        assertEquals("Hello there", result.output());
        assertEquals(new Usage(10, 5, 15), result.usage());
        assertEquals(1, result.messages().size());
        assertEquals("system", model.requests.getFirst().messages().getFirst().role());
        assertTrue(model.requests.getFirst().tools().isEmpty());
    }

    @Test
    void modelIsAskedForAStreamOnlyWhenSomeoneReadsTheAnswerAsItIsWritten() throws Exception {
        var model = new ScriptedModel().answer("streamed").answer("whole");
        var harness = new Harness(model);
        harness.runs.start(Harness.request("a")).await();
        var b = Harness.request("b");
        harness.runs.start(new RunRequest(b.model(), b.messages(), b.instructions(), b.toolsets(), b.sessionId(),
                b.sessionKey(), b.options(), b.maxIterations(), b.metadata(), false)).await();
        assertEquals(List.of(true, false), model.requests.stream().map(ModelRequest::stream).toList());
    }

    @Test
    void eventsComeInOrderWithDenseSeq() throws Exception {
        var model = new ScriptedModel().toolCalls(call("c1", "add", args(2, 3))).answer("5");
        var run = new Harness(model, ADD).start("add");
        run.await();
        var entries = Harness.entries(run);
        for (int i = 0; i < entries.size(); i++) assertEquals(i + 1, entries.get(i).seq());
        var types = entries.stream().map(e -> e.event().getClass().getSimpleName()).toList();
        assertEquals(List.of("Started", "UsageReported", "ToolCallStarted", "ToolCallFinished", "TextDelta",
                "UsageReported", "Completed"), types);
        var started = (RunEvent.ToolCallStarted) entries.get(2).event();
        assertEquals("⚡", started.emoji());
        var finished = (RunEvent.ToolCallFinished) entries.get(3).event();
        assertEquals("{\"sum\": 5}", finished.result());
        assertFalse(finished.error());
        var total = ((RunEvent.UsageReported) entries.get(5).event()).total();
        assertEquals(new Usage(20, 10, 30), total);
    }

    @Test
    void toolResultIsFedBackWithTheAssistantToolCalls() throws Exception {
        var model = new ScriptedModel().toolCalls(call("c1", "add", args(2, 3))).answer("The sum is 5");
        var result = new Harness(model, ADD).start("add 2 and 3").await();
        assertEquals("The sum is 5", result.output());
        var second = model.requests.get(1).messages();
        var assistant = second.get(second.size() - 2);
        assertEquals("assistant", assistant.role());
        assertEquals("c1", assistant.toolCalls().getFirst().id());
        var tool = second.getLast();
        assertEquals("tool", tool.role());
        assertEquals("c1", tool.toolCallId());
        assertEquals("{\"sum\": 5}", tool.text());
        assertEquals(List.of("add"), model.requests.getFirst().tools().stream().map(t -> t.name()).toList());
        assertEquals(3, result.messages().size());
    }

    @Test
    void parallelSafeCallsRunConcurrentlyAndKeepCallOrder() throws Exception {
        var both = new CountDownLatch(2);
        var secondDone = new CountDownLatch(1);
        var slowFirst = Tools.tool("wait", true, 100_000, (c, ctx) -> {
            both.countDown();
            if (!both.await(5, TimeUnit.SECONDS)) return new ToolResult.Error("not concurrent", false);
            int n = c.arguments().path("n").asInt();
            if (n == 1 && !secondDone.await(5, TimeUnit.SECONDS)) return new ToolResult.Error("no second", false);
            if (n == 2) secondDone.countDown(); // the first call finishes last
            return new ToolResult.Ok("r" + n);
        });
        var model = new ScriptedModel().toolCalls(call("c1", "wait", "n", 1), call("c2", "wait", "n", 2)).answer("ok");
        new Harness(model, slowFirst).start("go").await();
        var msgs = model.requests.get(1).messages();
        assertEquals("r1", msgs.get(msgs.size() - 2).text());
        assertEquals("r2", msgs.getLast().text());
    }

    @Test
    void unknownToolAndInvalidArgumentsBecomeErrorMessagesAndTheRunContinues() throws Exception {
        var bad = JsonNodeFactory.instance.objectNode().put(ToolDispatcher.INVALID_ARGUMENTS, "{a:")
                .put(ToolDispatcher.INVALID_ARGUMENTS_ERROR, "Unexpected character");
        var model = new ScriptedModel().toolCalls(call("c1", "nope", args(1, 1)), call("c2", "add", bad)).answer("done");
        var run = new Harness(model, ADD).start("go");
        var result = run.await();
        assertEquals("done", result.output());
        var msgs = model.requests.get(1).messages();
        assertEquals("{\"error\": \"Unknown tool: nope. Available tools: add\"}", msgs.get(msgs.size() - 2).text());
        assertEquals("{\"error\": \"Invalid arguments for add: Unexpected character. Send the call again with a JSON object.\"}",
                msgs.getLast().text());
        assertTrue(Harness.events(run).stream().filter(e -> e instanceof RunEvent.ToolCallFinished)
                .allMatch(e -> ((RunEvent.ToolCallFinished) e).error()));
    }

    @Test
    void throwingToolAndToolErrorAreReported() throws Exception {
        var boom = Tools.tool("boom", (c, ctx) -> { throw new IllegalStateException("kaput"); });
        var refuse = Tools.tool("refuse", (c, ctx) -> new ToolResult.Error("no way", false));
        var model = new ScriptedModel().toolCalls(call("c1", "boom", args(0, 0)), call("c2", "refuse", args(0, 0)))
                .answer("ok");
        new Harness(model, boom, refuse).start("go").await();
        var msgs = model.requests.get(1).messages();
        assertEquals("{\"error\": \"Tool execution failed: IllegalStateException: kaput\"}", msgs.get(msgs.size() - 2).text());
        assertEquals("{\"error\": \"no way\"}", msgs.getLast().text());
    }

    @Test
    void longResultsAreTruncatedAndSecretsRedacted() throws Exception {
        var big = Tools.tool("big", false, 10, (c, ctx) -> new ToolResult.Ok("sk-secret-123456789012345"));
        var model = new ScriptedModel().toolCalls(call("c1", "big", args(0, 0))).answer("ok");
        new Harness(model, 90, 0, null, Redactor.of(List.of("sk-secret-1")), big).start("go").await();
        assertEquals("[REDACTED]\n\n[... result truncated: 14 of 24 chars omitted ...]",
                model.requests.get(1).messages().getLast().text());
    }

    @Test
    void toolCompletionCarriesARedactedOutputPreviewOf200Characters() throws Exception {
        var serverKey = "server-key-0123456789abcdef";
        var upstreamKey = "sk-upstream-0123456789";
        var leaky = Tools.tool("leaky", (c, ctx) -> new ToolResult.Ok("API_SERVER_KEY=" + serverKey + "\n"
                + "OPENAI_API_KEY=" + upstreamKey + "\n" + "line\n".repeat(100)));
        var quiet = Tools.tool("quiet", (c, ctx) -> new ToolResult.Ok(""));
        var model = new ScriptedModel().toolCalls(call("c1", "leaky", args(0, 0)), call("c2", "quiet", args(0, 0)))
                .answer("ok");
        var run = new Harness(model, 90, 0, null, Redactor.of(List.of(serverKey, upstreamKey)), leaky, quiet).start("go");
        run.await();
        var finished = Harness.events(run).stream().filter(e -> e instanceof RunEvent.ToolCallFinished)
                .map(e -> (RunEvent.ToolCallFinished) e).toList();
        var preview = finished.get(0).outputPreview();
        assertEquals("API_SERVER_KEY=[REDACTED] OPENAI_API_KEY=[REDACTED] " + "line ".repeat(29) + "li…", preview);
        assertEquals(200, preview.length());
        assertFalse(preview.contains(serverKey) || preview.contains("sk-"), preview);
        assertNull(finished.get(1).outputPreview(), "an empty result has no preview");
    }

    @Test
    void iterationCapEndsWithAGraceCallWithoutTools() throws Exception {
        var model = new ScriptedModel().toolCalls(call("c1", "add", args(1, 1))).toolCalls(call("c2", "add", args(1, 2)))
                .answer("best effort");
        var result = new Harness(model, 2, 0, null, ADD).start("go").await();
        assertEquals(StopReason.ITERATION_LIMIT, result.stopReason());
        assertEquals(RunStatus.COMPLETED, result.status());
        assertEquals("best effort", result.output());
        assertEquals("Reached the iteration limit (2)", result.error());
        assertEquals("output_truncated", result.errorCode());
        var grace = model.requests.get(2);
        assertTrue(grace.tools().isEmpty());
        assertEquals(LocalAgentRuntime.GRACE_PROMPT, grace.messages().getLast().text());
        // the budget warning went upstream, but not into the transcript
        var sent = grace.messages();
        assertTrue(sent.get(sent.size() - 2).text().endsWith("[BUDGET WARNING: Iteration 2/2. Only 0 iteration(s) left."
                + " Provide your final response NOW.]"));
        assertTrue(result.messages().stream().noneMatch(m -> m.text().contains("BUDGET")));
    }

    @Test
    void retryableErrorIsRetriedThenSucceeds() throws Exception {
        var model = new ScriptedModel().fail(503, true, "busy").fail(0, true, "reset").answer("fine");
        var result = new Harness(model).start("go").await();
        assertEquals("fine", result.output());
        assertEquals(3, model.requests.size());
    }

    @Test
    void retriesStopAfterThree() throws Exception {
        var model = new ScriptedModel();
        for (int i = 0; i < 4; i++) model.fail(429, true, "slow down");
        var result = new Harness(model).start("go").await();
        assertEquals(StopReason.UPSTREAM_ERROR, result.stopReason());
        assertEquals("Upstream model returned 429: slow down", result.error());
        assertEquals(4, model.requests.size());
    }

    @Test
    void unauthorizedFailsAtOnce() throws Exception {
        var model = new ScriptedModel().fail(401, false, "Invalid API key");
        var result = new Harness(model).start("go").await();
        assertEquals(RunStatus.FAILED, result.status());
        assertEquals(StopReason.UPSTREAM_ERROR, result.stopReason());
        assertEquals("agent_error", result.errorCode());
        assertEquals("Upstream model returned 401: Invalid API key", result.error());
        assertEquals(1, model.requests.size());
    }

    @Test
    void aProviderMessageThatAlreadyNamesTheStatusIsNotPrefixedTwice() throws Exception {
        var model = new ScriptedModel().fail(401, false, "Upstream model returned 401: Invalid API key");
        var result = new Harness(model).start("go").await();
        assertEquals("Upstream model returned 401: Invalid API key", result.error());
    }

    @Test
    void toolsSeeTheSessionAndMemoryScopeAndContributePromptSections() throws Exception {
        var probe = new dev.caduceus.spi.tool.Tool() {
            final dev.caduceus.spi.tool.Tool inner = Tools.tool("probe", (c, ctx) ->
                    new dev.caduceus.spi.tool.ToolResult.Ok(ctx.sessionId() + "|" + ctx.memoryScope() + "|"
                            + ctx.approvalChannel() + "|" + c.arguments().path("n")));
            @Override public dev.caduceus.spi.tool.ToolSpec spec() {
                var params = (com.fasterxml.jackson.databind.node.ObjectNode) Harness.JSON.createObjectNode().put("type", "object");
                params.putObject("properties").putObject("n").put("type", "integer");
                var s = inner.spec();
                return new dev.caduceus.spi.tool.ToolSpec(s.name(), s.description(), params, s.toolset(), s.requiresEnv(),
                        s.risk(), s.maxResultChars(), s.parallelSafe(), s.concludesTurn(), s.emoji());
            }
            @Override public dev.caduceus.spi.tool.ToolResult call(dev.caduceus.spi.tool.ToolCall c,
                                                                 dev.caduceus.spi.tool.ToolContext ctx) throws Exception {
                return inner.call(c, ctx);
            }
            @Override public String systemPromptSection(String scope) { return "MEMORY SNAPSHOT for " + scope; }
        };
        var model = new ScriptedModel().toolCalls(ScriptedModel.call("c1", "probe", jsonArgs("{\"n\":\"7\"}")))
                .answer("done");
        var harness = new Harness(model, probe);
        var request = new RunRequest(null, List.of(Message.user("go")), null, List.of(), "sess-1", "user-42",
                dev.caduceus.spi.model.ModelOptions.DEFAULTS, 0, java.util.Map.of());
        harness.runs.start(request).await();
        var scope = "key:" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("user-42".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(model.requests.getFirst().messages().getFirst().text().contains("MEMORY SNAPSHOT for " + scope));
        var toolMessage = model.requests.get(1).messages().getLast();
        assertEquals("sess-1|" + scope + "|false|7", toolMessage.text(), "the string \"7\" was coerced to 7");
    }

    /**
     * The environment line names the workspace the turn's tools use: a tool's mount (a sandbox's
     * {@code /workspace}) when one is offered, else the host path, and never both.
     */
    @Test
    void thePromptNamesTheWorkspaceAsTheOfferedToolsSeeIt() throws Exception {
        var plain = Tools.tool("plain", (c, ctx) -> new dev.caduceus.spi.tool.ToolResult.Ok(""));
        var mounted = new dev.caduceus.spi.tool.Tool() {
            @Override public dev.caduceus.spi.tool.ToolSpec spec() {
                return Tools.tool("mounted", (c, ctx) -> new dev.caduceus.spi.tool.ToolResult.Ok("")).spec();
            }
            @Override public dev.caduceus.spi.tool.ToolResult call(dev.caduceus.spi.tool.ToolCall c,
                                                                 dev.caduceus.spi.tool.ToolContext ctx) {
                return new dev.caduceus.spi.tool.ToolResult.Ok("");
            }
            @Override public java.util.Optional<String> workspaceMount() { return java.util.Optional.of("/workspace"); }
        };
        var hostOnly = new ScriptedModel().answer("ok");
        new Harness(hostOnly, plain).start("go").await();
        var prompt = hostOnly.requests.getFirst().messages().getFirst().text();
        assertTrue(prompt.contains("Workspace: /work/space."), prompt);

        var sandboxed = new ScriptedModel().answer("ok");
        new Harness(sandboxed, plain, mounted).start("go").await();
        prompt = sandboxed.requests.getFirst().messages().getFirst().text();
        assertTrue(prompt.contains("Workspace: /workspace."), prompt);
        assertFalse(prompt.contains("/work/space"), "the host path the tools cannot use is not named: " + prompt);
    }

    @Test
    void contextTooLongIsAPartialCompletion() throws Exception {
        var model = new ScriptedModel().fail(400, false, "This model's maximum context length is 8192 tokens");
        var run = new Harness(model).start("go");
        var result = run.await();
        assertEquals(StopReason.CONTEXT_LENGTH, result.stopReason());
        assertNull(result.output());
        assertInstanceOf(RunEvent.Completed.class, Harness.events(run).getLast());
    }

    @Test
    void streamBrokenAfterOutputIsNotRetried() throws Exception {
        var model = new ScriptedModel().then((r, sink, c) -> {
            sink.accept(new ModelEvent.TextDelta("Hal"));
            throw new dev.caduceus.spi.model.ModelException("connection reset", true, 0, null);
        });
        var result = new Harness(model).start("go").await();
        assertEquals(StopReason.UPSTREAM_ERROR, result.stopReason());
        assertEquals("Hal", result.output());
        assertEquals(1, model.requests.size());
    }

    @Test
    void blankAnswerIsRetriedOnceThenEmptyResponse() throws Exception {
        var model = new ScriptedModel().answer("  ").answer("");
        var result = new Harness(model).start("go").await();
        assertEquals(StopReason.EMPTY_RESPONSE, result.stopReason());
        assertEquals("Model returned an empty response", result.error());
        assertEquals(2, model.requests.size());
        var recovered = new ScriptedModel().answer("").answer("second try");
        assertEquals("second try", new Harness(recovered).start("go").await().output());
    }

    @Test
    void lengthFinishIsOutputLength() throws Exception {
        var model = new ScriptedModel().then(ScriptedModel.events(new ModelEvent.TextDelta("cut sho"),
                new ModelEvent.Finish(FinishReason.LENGTH)));
        var result = new Harness(model).start("go").await();
        assertEquals(StopReason.OUTPUT_LENGTH, result.stopReason());
        assertEquals("cut sho", result.output());
        assertEquals("Model output was truncated (max_tokens)", result.error());
        assertEquals("output_truncated", result.errorCode());
    }

    @Test
    void cancelDuringModelCallInterruptsPromptly() throws Exception {
        var entered = new CountDownLatch(1);
        var model = new ScriptedModel().hang(entered);
        var run = new Harness(model).start("go");
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        run.cancel("user stop");
        var result = assertTimeoutPreemptively(Duration.ofSeconds(10), run::await); // the model never answers
        assertEquals(StopReason.INTERRUPTED, result.stopReason());
        assertEquals(RunStatus.CANCELLED, result.status());
        assertEquals("partial", result.output());
        assertEquals("Interrupted", result.error());
        var last = (RunEvent.Cancelled) Harness.events(run).getLast();
        assertEquals("user stop", last.reason());
        assertEquals("partial", last.partialOutput());
    }

    @Test
    void anInterruptedRunTellsItsToolsButACompletedOneDoesNot() throws Exception {
        var interrupted = new java.util.concurrent.CopyOnWriteArrayList<String>();
        var inner = Tools.tool("reaper", (c, ctx) -> new ToolResult.Ok("ok"));
        var reaper = new dev.caduceus.spi.tool.Tool() {
            @Override public dev.caduceus.spi.tool.ToolSpec spec() { return inner.spec(); }
            @Override public ToolResult call(dev.caduceus.spi.tool.ToolCall c, dev.caduceus.spi.tool.ToolContext ctx)
                    throws Exception { return inner.call(c, ctx); }
            @Override public void runInterrupted(String sessionId) { interrupted.add(sessionId); }
        };
        new Harness(new ScriptedModel().answer("done"), reaper).runs.start(Harness.request("hi", "s-done")).await();
        assertTrue(interrupted.isEmpty(), "a normal completion reaps nothing");

        var entered = new CountDownLatch(1);
        var run = new Harness(new ScriptedModel().hang(entered), reaper).runs.start(Harness.request("go", "s-stop"));
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        run.cancel("client gone");
        run.await();
        assertEquals(List.of("s-stop"), interrupted);
    }

    @Test
    void cancelDuringSlowToolInterruptsPromptly() throws Exception {
        var entered = new CountDownLatch(1);
        var slow = Tools.tool("slow", (c, ctx) -> {
            entered.countDown();
            Thread.sleep(30_000); // ignores the cancellation; only the interrupt stops it
            return new ToolResult.Ok("late");
        });
        var model = new ScriptedModel().toolCalls(call("c1", "slow", args(0, 0)));
        var run = new Harness(model, slow).start("go");
        assertTrue(entered.await(5, TimeUnit.SECONDS));
        run.cancel("stop");
        var result = assertTimeoutPreemptively(Duration.ofSeconds(10), run::await); // well before the 30 s tool ends
        assertEquals(StopReason.INTERRUPTED, result.stopReason());
        assertEquals(1, model.requests.size());
    }

    static com.fasterxml.jackson.databind.node.ObjectNode jsonArgs(String json) throws Exception {
        return (com.fasterxml.jackson.databind.node.ObjectNode) Harness.JSON.readTree(json);
    }

    static com.fasterxml.jackson.databind.node.ObjectNode args(int a, int b) {
        return JsonNodeFactory.instance.objectNode().put("a", a).put("b", b);
    }
}
