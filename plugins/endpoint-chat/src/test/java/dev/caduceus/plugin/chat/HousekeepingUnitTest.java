package dev.caduceus.plugin.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.ApprovalAnswer;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunStart;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.agent.SteerOutcome;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.spi.model.ModelEvent;
import dev.caduceus.spi.model.ModelException;
import dev.caduceus.spi.model.Models;
import dev.caduceus.platform.testkit.FakeExchange;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.FrontendFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The housekeeping case no real host can produce, on the handler alone: a client that leaves exactly
 * while the plain call runs (the call's cancellation is visible only from inside it). Everything else,
 * a host without plain calls (proxy mode) included, is {@link ChatHousekeepingTest}'s, on the real host.
 */
class HousekeepingUnitTest {
    private static final String TITLE = FrontendFixtures.load("open-webui-0.9.5.jsonl").get(2).path("body").toString();

    // Stub kept: no real host lets a test see the plain call cancelled from inside when its client leaves mid-call.
    private static final class AnsweringRuns implements Runs {
        final List<RunRequest> calls = new ArrayList<>();

        @Override public void checkAdmission() {}
        @Override public void checkReady() {}

        @Override
        public synchronized RunResult call(RunRequest request, Consumer<RunHandle> started) {
            calls.add(request);
            return RunResult.completed("A title", Usage.ZERO, List.of());
        }

        @Override public RunStart start(RunRequest request, RunOptions options) { throw new UnsupportedOperationException(); }
        @Override public Optional<RunHandle> find(String runId) { return Optional.empty(); }
        @Override public Optional<RunRecord> record(String runId) { return Optional.empty(); }
        @Override public RunQuery.Page list(RunQuery query) { return new RunQuery.Page(List.of(), false); }
        @Override public boolean stop(String runId) { return false; }
        @Override public ApprovalAnswer.Outcome approve(String runId, ApprovalAnswer answer) {
            return new ApprovalAnswer.Outcome.RunNotFound();
        }
        @Override public SteerOutcome steer(String runId, String text) { return SteerOutcome.RUN_NOT_FOUND; }
    }

    private static HttpHandler handler(FakePlatformContext ctx) {
        var family = (ChatFamily) new ChatPlugin().endpoints(ctx).getFirst();
        var handlers = new ArrayList<HttpHandler>();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                handlers.add(h);
                return this;
            }
        });
        return handlers.getFirst();
    }

    private static FakePlatformContext context(Runs runs, Models models) {
        return FakePlatformContext.builder("endpoint-chat").globalConfig(Map.of()).sections(Map.of()).models(models)
                .runs(runs).build();
    }

    @Test
    void aClientThatLeavesDuringTheCallGetsNoAnswer() throws Exception {
        var leaving = new AtomicReference<FakeExchange>();
        var gone = new ScriptedModels(List.of(new ModelEvent.TextDelta("{\"title\": \"Hi\"}")), null) {
            @Override
            public synchronized void stream(dev.caduceus.spi.model.ModelRequest request, Consumer<ModelEvent> sink,
                                            dev.caduceus.spi.tool.Cancellation cancel) throws ModelException {
                leaving.get().disconnect();
                assertTrue(cancel.isCancelled(), "the client leaving cancels the call");
                super.stream(request, sink, cancel);
            }
        };
        var runs = new AnsweringRuns();
        var ctx = context(runs, gone);
        var ex = new FakeExchange(ctx.json(), "POST", ChatHost.PATH).body(TITLE);
        leaving.set(ex);
        ex.call(handler(ctx));
        assertEquals(204, ex.status(), "nothing was answered");
        assertEquals(List.of(), runs.calls, "no agent run");
    }
}
