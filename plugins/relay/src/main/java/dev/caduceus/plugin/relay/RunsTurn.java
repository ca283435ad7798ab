package dev.caduceus.plugin.relay;

import dev.caduceus.spi.message.Message.ToolCallRef;
import java.util.List;
import java.util.Map;
import dev.caduceus.spi.agent.RunEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.tool.ToolContext.ApprovalChoice;
import dev.caduceus.spi.tool.ToolContext.ApprovalRequest;
import dev.caduceus.spi.outbound.OutboundHttp;
import dev.caduceus.spi.outbound.OutboundHttp.Event;
import dev.caduceus.spi.outbound.OutboundHttp.Failure;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
 * (at most {@link RunsRequest#CONTROL_TIMEOUT}, then the submission is cancelled) and stops the run
 * it names.
 *
 * <p>Threading: {@link #execute} runs on the run's thread, once; the cancellation callback, the
 * approval threads and the stop's thread touch only the volatile and atomic fields.
 */
final class RunsTurn {
    private static final System.Logger LOG = System.getLogger(RunsTurn.class.getName());
    static final int MAX_RESUMES = 5;
    private static final long FIRST_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 2_000;
    /** Read so far of a control answer (read to its end, so its connection is kept for the next request). */
    private static final int CONTROL_BODY = 64 * 1024;

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
    private final OutboundHttp http;
    private final Outcomes outcomes;
    private final RunRequest request;
    private final RunContext context;
    private final RemoteRun run;
    private final CompletableFuture<Void> cancelled = new CompletableFuture<>();
    private final CompletableFuture<Void> stopTaken = new CompletableFuture<>();
    private final AtomicBoolean stopSent = new AtomicBoolean();
    private volatile OutboundHttp.Exchange submitting;
    private volatile String remoteId;
    private volatile boolean over;

    RunsTurn(RelaySettings settings, ObjectMapper json, OutboundHttp http, Outcomes outcomes, RunRequest request,
             RunContext context) {
        this.settings = settings;
        this.json = json;
        this.http = http;
        this.outcomes = outcomes;
        this.request = request;
        this.context = context;
        this.run = new RemoteRun(json, context, this::approvalRequested, this::toolCallsRequired);
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
        var exchange = http.prepare(RunsRequest.submit(settings, json, request));
        submitting = exchange;
        if (cancelled.isDone()) bound(exchange); // cancelled before the field was set: the callback could not bound it
        try (exchange) {
            OutboundHttp.Response response;
            try {
                response = exchange.send();
            } catch (Failure e) {
                if (cancelled.isDone() || exchange.cancelled()) return cancelledResult();
                return outcomes.unanswered(e, null, run.usage());
            }
            int status = response.status();
            if (status == 404 || status == 405) {
                response.close();
                if (cancelled.isDone()) return cancelledResult();
                throw new NoRunsApi(status);
            }
            if (status / 100 != 2) {
                var message = outcomes.answered(status, response);
                if (cancelled.isDone()) return cancelledResult();
                return outcomes.failed(Outcomes.codeFor(status), message, null, run.usage());
            }
            String id;
            try {
                id = json.readTree(response.text(64 * 1024)).path("run_id").asText("");
            } catch (IOException e) {
                if (cancelled.isDone()) return cancelledResult();
                id = "";
            }
            if (id.isBlank())
                return outcomes.failed("proxy_error", "The remote agent server accepted the run without a run_id", null, run.usage());
            remoteId = id;
        } finally {
            submitting = null;
        }
        if (cancelled.isDone()) {
            sendStop();
            return cancelledResult();
        }
        return null;
    }

    /** A cancelled turn waits for the submission's answer {@link RunsRequest#CONTROL_TIMEOUT} at most. */
    private void bound(OutboundHttp.Exchange submission) {
        CompletableFuture.delayedExecutor(RunsRequest.CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (submitting == submission) submission.cancel();
        });
    }

    /** Reads the remote run's events until its terminal event, resuming after broken connections. */
    private RunResult tail() throws Exception {
        int attempts = 0;
        long backoff = FIRST_BACKOFF_MILLIS;
        IOException lastProblem = null;
        while (true) {
            long before = run.lastSeq();
            var exchange = http.prepare(RunsRequest.events(settings, request.sessionKey(), remoteId, before));
            try (exchange; var hook = context.cancellation().onCancel(exchange::cancel)) {
                try {
                    var response = exchange.send();
                    int status = response.status();
                    if (status / 100 != 2) {
                        var message = outcomes.answered(status, response);
                        if (exchange.cancelled()) return cancelledResult();
                        if (status / 100 != 5 && status != 429)
                            return outcomes.failed(Outcomes.codeFor(status), message, run.output(), run.usage());
                        lastProblem = new IOException(message);
                    } else {
                        var events = response.events();
                        for (Optional<Event> event; (event = events.next()).isPresent(); ) {
                            if (run.event(event.get())) return result();
                        }
                        lastProblem = null;
                    }
                } catch (Failure e) {
                    if (exchange.cancelled() || cancelled.isDone()) return cancelledResult();
                    switch (e.kind()) {
                        case TIMEOUT -> {
                            if (e.requestSent()) return outcomes.silent(run.output(), run.usage());
                        }
                        case LINE_TOO_LONG -> {
                            return malformed(e.getMessage());
                        }
                        case REDIRECT -> {
                            return outcomes.unanswered(e, run.output(), run.usage());
                        }
                        default -> { }
                    }
                    lastProblem = e;
                } catch (RemoteTurn.Malformed e) {
                    return malformed(e.getMessage());
                }
                if (exchange.cancelled()) return cancelledResult();
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

    private RunResult malformed(String why) {
        return outcomes.failed("proxy_error", "The remote agent server sent a malformed event stream: "
                + Outcomes.clip(why), run.output(), run.usage());
    }

    /** Resuming was given up: {@code problem} is the last attempt's failure, or null when the stream just ended. */
    private RunResult broken(IOException problem) {
        if (problem instanceof Failure f && Outcomes.connectFailure(f))
            return outcomes.unreachable(f, run.output(), run.usage());
        var why = problem == null ? "it ended before the run finished"
                : problem instanceof Failure f ? "it broke (" + Outcomes.clip(f.getMessage()) + ")"
                : problem.getMessage(); // The remote agent server answered <status>: …
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

    /** Cancellation callback (must not block): the stop goes out at once when the remote id is known. */
    private void onCancel() {
        cancelled.complete(null);
        if (remoteId != null) {
            sendStop();
            return;
        }
        var pending = submitting;
        if (pending != null) bound(pending);
    }

    /** Posts {@code /stop} once, on a thread of its own; {@link #stopTaken} completes when it is answered or failed. */
    private void sendStop() {
        var id = remoteId;
        if (id == null || !stopSent.compareAndSet(false, true)) return;
        Thread.ofVirtual().name("relay-stop-" + id).start(() -> {
            try (var response = http.send(RunsRequest.stop(settings, request.sessionKey(), id))) {
                int status = response.status();
                if (status / 100 != 2 && status != 404)
                    LOG.log(System.Logger.Level.WARNING, "Stopping remote run " + id + ": the remote answered " + status);
                response.text(CONTROL_BODY);
            } catch (Failure e) {
                LOG.log(System.Logger.Level.WARNING, "Stopping remote run " + id + " failed: " + e.getMessage());
            } catch (RuntimeException e) { // the host's client was closed (shutdown)
                LOG.log(System.Logger.Level.WARNING, "Stopping remote run " + id + " failed: " + e);
            } finally {
                stopTaken.complete(null);
            }
        });
    }

    /**
     * Called on the run's thread by {@link RemoteRun}: the remote waits for the caller's outputs of its own calls. The
     * front's run announces them (it waits too, {@code requires_action}) and a thread of its own posts the answers to
     * the remote with the remote's ids; a front stop stops the remote as ever.
     */
    private void toolCallsRequired(List<ToolCallRef> calls) {
        context.emit(new RunEvent.ToolCallsRequired(calls));
        if (!context.toolOutputChannel()) return;
        Thread.ofVirtual().name("relay-tool-outputs-" + remoteId).start(() -> {
            Map<String, String> outputs;
            try {
                outputs = context.awaitToolOutputs(calls);
            } catch (InterruptedException e) {
                return;
            }
            if (outputs == null || cancelled.isDone() || over) return; // the stop reaches the remote on its own
            var id = remoteId;
            try (var response = http.send(RunsRequest.toolOutputs(settings, json, request.sessionKey(), id, outputs))) {
                if (response.status() / 100 != 2)
                    LOG.log(System.Logger.Level.WARNING, "The remote refused the tool outputs of run " + id + ": "
                            + outcomes.redact(outcomes.answered(response.status(), response)));
                else response.text(CONTROL_BODY);
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "Sending the tool outputs of remote run " + id + " failed: "
                        + e.getClass().getSimpleName());
            }
        });
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
        try (var response = http.send(RunsRequest.approval(settings, json, request.sessionKey(), id, requestId, choice))) {
            if (response.status() / 100 != 2)
                LOG.log(System.Logger.Level.WARNING, "The remote refused the answer to approval " + requestId + " of run "
                        + id + ": " + outcomes.redact(outcomes.answered(response.status(), response)));
            else response.text(CONTROL_BODY);
        } catch (Failure e) {
            LOG.log(System.Logger.Level.WARNING, "Answering approval " + requestId + " of remote run " + id + " failed: "
                    + e.getMessage());
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "Answering approval " + requestId + " of remote run " + id + " failed: "
                    + e.getClass().getSimpleName());
        }
    }
}
