package dev.caduceus.plugin.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One turn of a run that has an approval channel, run on the remote's runs API:
 * {@code POST /v1/runs}, then its event stream, resumed with {@code Last-Event-ID} when the
 * connection breaks before the terminal event (up to {@value #MAX_RESUMES} attempts in a row
 * without progress). The remote's {@code approval.request} becomes the front's
 * {@link RunContext#requestApproval} (one virtual thread per request, so several can be pending)
 * and the front's answer is posted back with the remote's {@code request_id}. The front's
 * cancellation (stop, shutdown) posts {@code /stop} to the remote at once and closes the stream;
 * the turn returns once the remote took the stop (or {@link RunsRequest#CONTROL_TIMEOUT} passed).
 * A turn that fails while the remote run goes on (malformed or silent stream, resume given up)
 * stops it the same way.
 *
 * <p>A cancellation while the submission is in flight does not abort it: the remote may already
 * have started the run, and only its id lets the front stop it. The turn waits for the answer
 * (at most {@link RunsRequest#CONTROL_TIMEOUT}) and stops the run it names.
 *
 * <p>Threading: {@link #execute} runs on the run's thread, once; the cancellation callback and
 * the approval threads touch only the volatile and atomic fields.
 */
final class RunsTurn {
    private static final System.Logger LOG = System.getLogger(RunsTurn.class.getName());
    static final int MAX_RESUMES = 5;
    private static final long FIRST_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    /** The remote has no runs API ({@code POST /v1/runs} answered {@code status}): use chat completions. */
    static final class NoRunsApi extends Exception {
        final int status;

        NoRunsApi(int status) {
            super("POST /v1/runs answered " + status, null, false, false);
            this.status = status;
        }
    }

    private final RelaySettings settings;
    private final ObjectMapper json;
    private final HttpClient http;
    private final ScheduledExecutorService timer;
    private final Outcomes outcomes;
    private final RunRequest request;
    private final RunContext context;
    private final RemoteRun run;
    private final CompletableFuture<Void> cancelled = new CompletableFuture<>();
    private final CompletableFuture<Void> stopTaken = new CompletableFuture<>();
    private final AtomicBoolean stopSent = new AtomicBoolean();
    private volatile String remoteId;
    private volatile boolean over;

    RunsTurn(RelaySettings settings, ObjectMapper json, HttpClient http, ScheduledExecutorService timer,
             Outcomes outcomes, RunRequest request, RunContext context) {
        this.settings = settings;
        this.json = json;
        this.http = http;
        this.timer = timer;
        this.outcomes = outcomes;
        this.request = request;
        this.context = context;
        this.run = new RemoteRun(json, context, this::approvalRequested);
    }

    RunResult execute() throws Exception {
        try (var hook = context.cancellation().onCancel(this::onCancel)) {
            if (cancelled.isDone()) return cancelledResult(); // stopped before it began: nothing to start remotely
            var failure = submit();
            if (failure != null) return failure;
            var result = tail();
            if (run.outcome() == null) abandon(); // the front gave up on a remote run that goes on
            return result;
        } finally {
            over = true;
        }
    }

    /** Posts the run; null when the remote accepted it ({@link #remoteId} set), else how the turn ended. */
    private RunResult submit() throws Exception {
        var pending = http.sendAsync(RunsRequest.submit(settings, json, request), HttpResponse.BodyHandlers.ofInputStream());
        HttpResponse<InputStream> response;
        try {
            CompletableFuture.anyOf(pending, cancelled).get(settings.readTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!pending.isDone()) { // cancelled first: let the answer arrive, so the run it starts can be stopped
                response = pending.get(RunsRequest.CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                response = pending.get();
            }
        } catch (TimeoutException e) {
            pending.cancel(true);
            if (cancelled.isDone()) return cancelledResult();
            return outcomes.failed("proxy_timeout", "The remote agent server sent nothing for "
                    + settings.readTimeout().toSeconds() + " s", null, run.usage());
        } catch (ExecutionException e) {
            if (cancelled.isDone()) return cancelledResult();
            return unreachable(e.getCause());
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        }
        int status = response.statusCode();
        if (status == 404 || status == 405) {
            response.body().close();
            if (cancelled.isDone()) return cancelledResult();
            throw new NoRunsApi(status);
        }
        if (status / 100 != 2) {
            var message = outcomes.answered(status, response.body());
            if (cancelled.isDone()) return cancelledResult();
            return outcomes.failed(Outcomes.codeFor(status), message, null, run.usage());
        }
        String id;
        try (var body = response.body()) {
            id = json.readTree(body.readNBytes(64 * 1024)).path("run_id").asText("");
        } catch (IOException e) {
            id = "";
        }
        if (id.isBlank())
            return outcomes.failed("proxy_error", "The remote agent server accepted the run without a run_id", null, run.usage());
        remoteId = id;
        if (cancelled.isDone()) {
            sendStop();
            return cancelledResult();
        }
        return null;
    }

    /** Reads the remote run's events until its terminal event, resuming after broken connections. */
    private RunResult tail() throws Exception {
        int attempts = 0;
        long backoff = FIRST_BACKOFF_MILLIS;
        Throwable lastProblem = null;
        while (true) {
            long before = run.lastSeq();
            try (var call = RemoteCall.send(http, RunsRequest.events(settings, request.sessionKey(), remoteId, before),
                    context.cancellation(), timer, settings.readTimeout())) {
                try {
                    var response = call.response();
                    int status = response.statusCode();
                    if (status / 100 != 2) {
                        var message = outcomes.answered(status, response.body());
                        if (call.cancelled()) return cancelledResult();
                        if (status / 100 != 5 && status != 429)
                            return outcomes.failed(Outcomes.codeFor(status), message, run.output(), run.usage());
                        lastProblem = new IOException(message);
                    } else {
                        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                            for (String line; (line = reader.readLine()) != null; ) {
                                call.touched();
                                if (run.line(line)) return result();
                            }
                        }
                        lastProblem = null;
                    }
                } catch (IOException e) {
                    if (call.cancelled() || cancelled.isDone()) return cancelledResult();
                    if (call.timedOut())
                        return outcomes.failed("proxy_timeout", "The remote agent server sent nothing for "
                                + settings.readTimeout().toSeconds() + " s", run.output(), run.usage());
                    lastProblem = e;
                } catch (RemoteTurn.Malformed e) {
                    return outcomes.failed("proxy_error", "The remote agent server sent a malformed event stream: "
                            + Outcomes.clip(e.getMessage()), run.output(), run.usage());
                }
                if (call.cancelled()) return cancelledResult();
            }
            if (cancelled.isDone()) return cancelledResult();
            if (run.lastSeq() > before) {
                attempts = 0;
                backoff = FIRST_BACKOFF_MILLIS;
            }
            if (++attempts > MAX_RESUMES) return broken(lastProblem);
            try {
                cancelled.get(backoff, TimeUnit.MILLISECONDS);
                return cancelledResult();
            } catch (TimeoutException e) {
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    private RunResult broken(Throwable problem) {
        if (problem != null && isConnectFailure(problem))
            return unreachable(problem);
        var why = problem == null ? "it ended before the run finished"
                : problem instanceof IOException && problem.getMessage() != null && problem.getMessage().startsWith("The remote")
                ? problem.getMessage() : "it broke (" + problem.getClass().getSimpleName() + ")";
        return outcomes.failed("proxy_error", "The remote event stream of run " + remoteId + " could not be resumed: "
                + why, run.output(), run.usage());
    }

    private RunResult result() {
        return switch (run.outcome()) {
            case COMPLETED -> Outcomes.completed(run.output(), run.usage());
            case FAILED -> outcomes.failed("agent_error", run.error() == null ? "The remote agent failed" : run.error(),
                    run.output(), run.usage());
            case CANCELLED -> Outcomes.cancelled(run.output(), run.usage());
        };
    }

    /** The front was cancelled: make sure the remote has the stop (bounded wait), then end cancelled. */
    private RunResult cancelledResult() throws InterruptedException {
        if (remoteId != null) abandon();
        return Outcomes.cancelled(run.output().isEmpty() ? null : run.output(), run.usage());
    }

    /** Stops the remote run the front no longer follows (bounded wait), so its tools do not run on unseen. */
    private void abandon() throws InterruptedException {
        sendStop();
        try {
            stopTaken.get(RunsRequest.CONTROL_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // logged where it failed; the turn's failure stands
        }
    }

    private RunResult unreachable(Throwable e) {
        if (e instanceof HttpConnectTimeoutException || isConnectFailure(e))
            return outcomes.failed("proxy_unreachable", "The remote agent server " + settings.origin()
                    + " is unreachable (" + e.getClass().getSimpleName() + ")", run.output(), run.usage());
        return outcomes.failed("proxy_unreachable", "The remote agent server " + settings.origin()
                + " is unreachable: " + Outcomes.clip(e.getMessage()), run.output(), run.usage());
    }

    private static boolean isConnectFailure(Throwable e) {
        return e instanceof ConnectException || e.getCause() instanceof ConnectException
                || e instanceof HttpConnectTimeoutException;
    }

    /** Cancellation callback (must not block): the stop goes out at once when the remote id is known. */
    private void onCancel() {
        cancelled.complete(null);
        if (remoteId != null) sendStop();
    }

    private void sendStop() {
        var id = remoteId;
        if (id == null || !stopSent.compareAndSet(false, true)) return;
        try {
            http.sendAsync(RunsRequest.stop(settings, request.sessionKey(), id), HttpResponse.BodyHandlers.discarding())
                    .whenComplete((response, error) -> {
                        if (error != null)
                            LOG.log(System.Logger.Level.WARNING, "Stopping remote run " + id + " failed: " + error);
                        else if (response.statusCode() / 100 != 2 && response.statusCode() != 404)
                            LOG.log(System.Logger.Level.WARNING, "Stopping remote run " + id + ": the remote answered "
                                    + response.statusCode());
                        stopTaken.complete(null);
                    });
        } catch (RuntimeException e) { // the client was shut down
            stopTaken.complete(null);
        }
    }

    /** Called on the run's thread by {@link RemoteRun}: asks the front on a thread of its own. */
    private void approvalRequested(String requestId, ApprovalRequest ask) {
        Thread.ofVirtual().name("relay-approval-" + remoteId).start(() -> answer(requestId, ask));
    }

    private void answer(String requestId, ApprovalRequest ask) {
        ApprovalChoice choice;
        try {
            choice = context.requestApproval(ask);
        } catch (InterruptedException e) {
            return;
        }
        if (cancelled.isDone() || over) return; // the stop denies it on the remote; a finished run has nothing pending
        var id = remoteId;
        try {
            var response = http.send(RunsRequest.approval(settings, json, request.sessionKey(), id, requestId, choice),
                    HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() / 100 != 2)
                LOG.log(System.Logger.Level.WARNING, "The remote refused the answer to approval " + requestId + " of run "
                        + id + ": " + outcomes.redact(outcomes.answered(response.statusCode(), response.body())));
            else response.body().close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "Answering approval " + requestId + " of remote run " + id + " failed: "
                    + e.getClass().getSimpleName());
        }
    }
}
