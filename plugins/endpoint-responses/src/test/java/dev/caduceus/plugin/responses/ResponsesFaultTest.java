package dev.caduceus.plugin.responses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunSubscription;
import dev.caduceus.spi.agent.Runs;
import dev.caduceus.spi.http.HttpHandler;
import dev.caduceus.spi.http.Routes;
import dev.caduceus.platform.testkit.FakeExchange;
import dev.caduceus.platform.testkit.FakePlatformContext;
import dev.caduceus.platform.testkit.HeldTurn;
import dev.caduceus.platform.testkit.Turn;
import dev.caduceus.platform.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Optional;
import dev.caduceus.spi.store.PluginDatabase.Dialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults: the handler's last line of defence when a run's {@code await} throws (a stub, on the
 * handler alone), and a client leaving a non-streaming request (on the real host).
 */
class ResponsesFaultTest {
    @TempDir Path dir;

    // Stub kept: a real host cannot make await throw (RunService turns a runtime's exception into internal_error).
    private static final class AwaitThrowingRuns implements Runs {
        @Override public void checkAdmission() {}

        @Override public void checkReady() {}

        private static RunHandle broken() {
            return new RunHandle() {
                @Override public String id() { return "run_broken"; }
                @Override public RunSubscription subscribe(long afterSeq) { throw new IllegalStateException("no journal"); }
                @Override public RunResult await() { throw new IllegalStateException("secret internal detail"); }
                @Override public void cancel(String reason) {}
            };
        }

        @Override
        public dev.caduceus.spi.agent.RunStart start(RunRequest request, dev.caduceus.spi.agent.RunOptions options) {
            return new dev.caduceus.spi.agent.RunStart(broken(), dev.caduceus.spi.agent.RunStatus.RUNNING, false);
        }

        @Override
        public RunResult call(RunRequest request, java.util.function.Consumer<RunHandle> started)
                throws InterruptedException {
            var handle = broken();
            started.accept(handle);
            return handle.await();
        }

        @Override public Optional<RunHandle> find(String runId) { return Optional.empty(); }
        @Override public Optional<dev.caduceus.spi.agent.RunRecord> record(String runId) { return Optional.empty(); }
        @Override public dev.caduceus.spi.agent.RunQuery.Page list(dev.caduceus.spi.agent.RunQuery query) {
            return new dev.caduceus.spi.agent.RunQuery.Page(java.util.List.of(), false);
        }
        @Override public boolean stop(String runId) { return false; }
        @Override public dev.caduceus.spi.agent.ApprovalAnswer.Outcome approve(String runId,
                dev.caduceus.spi.agent.ApprovalAnswer answer) {
            return new dev.caduceus.spi.agent.ApprovalAnswer.Outcome.RunNotFound();
        }
        @Override public dev.caduceus.spi.agent.SteerOutcome steer(String runId, String text) {
            return dev.caduceus.spi.agent.SteerOutcome.RUN_NOT_FOUND;
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anExceptionIsAFailedResponseNotA500(Dialect dialect) throws Exception {
        try (var db = TestDatabase.open(dir, "endpoint-responses", dialect)) {
            anExceptionIsAFailedResponse(db);
        }
    }

    private static void anExceptionIsAFailedResponse(TestDatabase db) throws Exception {
        var ctx = FakePlatformContext.builder("endpoint-responses").runs(new AwaitThrowingRuns()).database(db).build();
        var plugin = new ResponsesPlugin();
        plugin.start(ctx);
        var family = plugin.endpoints(ctx).getFirst();
        var handlers = new ArrayList<HttpHandler>();
        family.routes(new Routes() {
            @Override
            public Routes route(String method, String template, String name, HttpHandler h) {
                handlers.add(h);
                return this;
            }
        });
        var ex = new FakeExchange(ctx.json(), "POST", "/v1/responses").body("{\"input\":\"hi\"}").call(handlers.get(0));
        assertEquals(200, ex.status());
        assertEquals("failed", ex.responseBody().get("status").asText());
        assertEquals("Internal server error", ex.responseBody().get("error").get("message").asText());
        var stream = new FakeExchange(ctx.json(), "POST", "/v1/responses")
                .body("{\"input\":\"hi\",\"stream\":true}").call(handlers.get(0)).stream();
        var last = stream.frames().stream().filter(f -> f.kind().equals("event")).toList().getLast();
        assertEquals("response.failed", last.name());
        assertEquals("response.failed", last.data().get("type").asText());
    }

    @Test
    void aClientThatLeavesANonStreamingRequestCancelsTheRun() throws Exception {
        try (var api = ResponsesHost.start()) {
            var held = new HeldTurn(Turn.text("too late"));
            api.upstream.enqueue(held);
            try (var socket = api.postRaw("{\"input\":\"hi\"}")) {
                held.awaitArrival();
                assertEquals(1, api.activeRuns());
                socket.close(); // the client leaves while the model thinks
                // The model has not answered: only a cancellation can have ended the run.
                api.awaitNoActiveRun("the run is cancelled when its client leaves");
            } finally {
                held.release();
            }
        }
    }

    @Test
    void serviceFileNamesThePlugin() throws Exception {
        var file = Path.of("src/main/resources/META-INF/services/dev.caduceus.spi.PlatformPlugin");
        assertEquals(ResponsesPlugin.class.getName(), Files.readString(file).trim());
        assertTrue(Files.exists(Path.of("src/main/resources/db/migration/endpoint-responses/sqlite/V1__responses.sql")));
        assertTrue(Files.exists(Path.of("src/main/resources/db/migration/endpoint-responses/postgresql/V1__responses.sql")));
    }
}
