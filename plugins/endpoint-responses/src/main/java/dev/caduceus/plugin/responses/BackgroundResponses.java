package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.ClientGoneException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.support.stream.EventPump;
import java.time.Duration;
import dev.caduceus.spi.agent.RunQuery;
import dev.caduceus.spi.agent.RunRecord;
import dev.caduceus.spi.agent.RunStatus;
import dev.caduceus.spi.agent.Runs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Background responses ({@code background: true}, issue 43): each is saved {@code queued} with its
 * {@code response.created} and {@code response.queued} frames, then runs on its own virtual thread, detached
 * from any connection: it waits for admission under the server's and its key's concurrency caps (a bounded
 * queue, {@code responses.background_queue}; beyond it the create is a 429), then its run's frames go to the
 * journal ({@link ResponseStream#runDetached}) and its snapshots to the store, where {@code GET} and stream
 * followers read them. {@link #cancel} stops one run here; a cancel asked on another node is a mark in the
 * store that {@link #pollCancels} (scheduled) picks up. While it is queued or runs, the response is in
 * {@code live}, whose stream leases the plugin renews.
 *
 * <p>Its run is durable (origin {@code response:<id>}, never waiting on people or its caller), so that when its
 * server stops the run is resumed like any run of {@code /v1/runs}; the host then tells {@link BackgroundResumer}, and
 * {@link #takeOver} rebuilds the stream from the journal and follows the run again in this process. What nothing
 * resumes (a response still queued, a run that was ended instead) ends {@code failed} ({@link #sweepStranded},
 * {@link #endTakenOver}). Thread-safe.
 */
final class BackgroundResponses {
    /** The run's cancel reason when its caller cancels it (the stream then ends {@code cancelled}). */
    static final String CANCEL_REASON = "cancelled by the client";
    /** The origin kind of a background response's run: its origin is {@code response:<id>}. */
    static final String ORIGIN_KIND = "response";
    private static final String ORIGIN = ORIGIN_KIND + ":";
    /** The error of a background response whose server stopped while it waited for a run slot. */
    static final String STOPPED_QUEUED = "The server stopped while this background response waited to start; nothing "
            + "of it ran. Create it again.";
    private static final System.Logger LOG = System.getLogger(BackgroundResponses.class.getName());
    /** How often a queued response retries admission when no run of this plugin ended meanwhile. */
    private static final Duration ADMISSION_RETRY = Duration.ofMillis(250);

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final Set<String> live;
    private final int maxQueued;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final Object capacity = new Object();
    private final dev.caduceus.support.clienttools.PendingToolCalls pending;
    private final boolean reasoningByDefault;

    /**
     * @param pending            where a taken-over response that ends with the caller's calls keeps its steps
     * @param reasoningByDefault whether a taken-over response whose journal does not tell shows tool steps as reasoning
     */
    BackgroundResponses(PlatformContext ctx, ResponseStore store, Set<String> live, int maxQueued,
                        dev.caduceus.support.clienttools.PendingToolCalls pending, boolean reasoningByDefault) {
        this.pending = pending;
        this.reasoningByDefault = reasoningByDefault;
        this.ctx = ctx;
        this.store = store;
        this.live = live;
        this.maxQueued = maxQueued;
    }

    /**
     * Saves {@code turn}'s response {@code queued}, journals its first two frames and starts its thread, which
     * runs {@code stream} once admitted; returns the response object as saved. 429 when
     * {@code responses.background_queue} responses already wait.
     */
    ObjectNode submit(ResolvedTurn turn, ResponseStream stream, dev.caduceus.spi.webhook.Webhook webhook) {
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            throw new ApiError(429, "Too many background responses are waiting to start (max " + maxQueued + "); retry later.",
                    ApiError.RATE_LIMIT, null, "background_queue_full").withHeader("Retry-After", "1").exception();
        }
        var id = turn.envelope().id();
        var body = turn.envelope().build("queued", Envelope.JSON.arrayNode(), null, null);
        var job = new Job(id);
        try {
            live.add(id);
            store.save(turn.snapshot(body, turn.envelope().createdAt()), turn.write(List.of()), turn.conversation());
            if (webhook != null) store.attachWebhook(id, webhook); // before its thread can end it
            journal(id, 0, "response.created", body.deepCopy());
            journal(id, 1, "response.queued", body.deepCopy());
            jobs.put(id, job);
            job.start(() -> {
                RunHandle handle;
                try {
                    handle = admit(job, turn);
                } finally {
                    queued.decrementAndGet();
                }
                if (handle == null) return;
                job.started(handle);
                stream.withLeftLive(() -> leftLive(handle)).runDetached(handle, pump());
            });
        } catch (RuntimeException e) {
            queued.decrementAndGet();
            live.remove(id);
            jobs.remove(id);
            throw e;
        }
        return body;
    }

    /**
     * Response {@code id}'s run, live when its server stopped, goes on in this process ({@link Runs.Resumer}): its
     * stream is rebuilt from the journal and follows the run again from its {@code run.resumed}, event
     * {@code resumedSeq}. A response that is gone or ended meanwhile has its run cancelled.
     */
    void takeOver(String id, RunHandle run, long resumedSeq) {
        var turn = store.storedTurn(id).orElse(null);
        var restored = turn == null ? null : ResumedFrames.read(store.frames(id, -1), ctx.json());
        if (restored == null || restored.ended()) {
            run.cancel(turn == null ? "its background response is gone" : "its background response has ended");
            return;
        }
        boolean reasoning = restored.items().stream().anyMatch(i -> i.path("type").asText().equals("reasoning"))
                || reasoningByDefault;
        ResponseStream.Handoff handoff = (calls, steps) -> pending.remember(turn.owner(), calls, steps);
        var stream = new ResponseStream(turn, store, reasoning, handoff, ctx.clock())
                .withFiles(() -> ctx.service(dev.caduceus.support.services.FileLibrary.class));
        var job = new Job(id);
        live.add(id);
        store.renewStreams(List.of(id), ctx.clock().instant()); // the lease is this node's now
        jobs.put(id, job);
        job.started(run);
        job.start(() -> stream.withLeftLive(() -> leftLive(run)).resumeDetached(run, resumedSeq, restored, pump()));
        LOG.log(System.Logger.Level.INFO, "Background response {0} goes on here (its run {1} was resumed)", id, run.id());
    }

    /** Response {@code id}'s run was taken over after its server stopped, but ended ({@code record} says how). */
    void endTakenOver(String id, RunRecord record) {
        var cancelled = record.status() == RunStatus.CANCELLED;
        var error = record.error() == null || record.error().isBlank() ? ResponseStore.SERVER_STOPPED : record.error();
        end(id, cancelled ? "cancelled" : "failed", cancelled ? null : error);
    }

    /**
     * Ends the background responses whose server stopped and whose run nobody resumes: those still {@code queued}
     * (they had not started) and those whose run ended or is gone; a run still live on some node is left to it. On
     * SQLite, once after the runs were taken over ({@code leaseEnded} {@link Instant#MAX}); on PostgreSQL, now and
     * then for the leases that ran out.
     */
    void sweepStranded(Instant leaseEnded) {
        var ended = new ArrayList<String>();
        for (var id : store.strandedBackground(leaseEnded, jobs.keySet())) {
            var runs = ctx.runs().list(new RunQuery(Set.of(), null, ORIGIN + id, 1, null, null, null)).runs();
            if (!runs.isEmpty() && !runs.getFirst().status().isTerminal()) continue; // its node goes on with it
            if (end(id, "failed", runs.isEmpty() ? STOPPED_QUEUED : ResponseStore.SERVER_STOPPED)) ended.add(id);
        }
        if (!ended.isEmpty())
            LOG.log(System.Logger.Level.WARNING, "{0} background response(s) were live when their server stopped and "
                    + "nothing resumed them; marked failed: {1}", ended.size(),
                    ended.size() > 10 ? ended.subList(0, 10) + " …" : ended);
    }

    /**
     * Ends response {@code id}, still queued or in progress but followed by no stream here (it never started, or its
     * server stopped), as {@code status} with {@code error}, and journals its terminal frame.
     */
    private boolean end(String id, String status, String error) {
        var ended = store.endBackground(id, status, error);
        if (ended.isEmpty()) return false;
        long next = store.lastSeq(id).orElse(-1L) + 1;
        journal(id, next, status.equals("cancelled") ? "response.cancelled" : "response.failed", ended.get());
        return true;
    }

    /** Whether {@code run}, whose events ended without a terminal one, is still live: its server's shutdown left it so. */
    private boolean leftLive(RunHandle run) {
        return ctx.runs().record(run.id()).map(r -> !r.status().isTerminal()).orElse(false);
    }

    private EventPump pump() {
        return new EventPump(Duration.ofSeconds(ctx.global().sseKeepaliveSeconds()));
    }

    /** Whether response {@code id} is queued or running in this process. */
    boolean runsHere(String id) {
        return jobs.containsKey(id);
    }

    /**
     * Stops response {@code id} if this process runs it: a queued one ends {@code cancelled} without starting,
     * a running one's run is cancelled (its tool's process tree killed). Waits up to {@code wait} for the
     * response to end; false when it does not run here.
     */
    boolean cancel(String id, Duration wait) throws InterruptedException {
        var job = jobs.get(id);
        if (job == null) return false;
        job.cancel();
        job.thread.join(wait);
        return true;
    }

    /** Cancels the responses of this process that another node asked to cancel ({@link ResponseStore#requestCancel}). */
    void pollCancels() {
        if (jobs.isEmpty()) return;
        for (var id : store.cancelRequested(List.copyOf(jobs.keySet()))) {
            var job = jobs.get(id);
            if (job != null) job.cancel();
        }
    }

    /** What a job's thread does. */
    @FunctionalInterface
    private interface Work {
        void run() throws InterruptedException;
    }

    /** One background response run here: waiting for admission, or following its run to the end. */
    private final class Job {
        private final String id;
        private volatile boolean cancelled;
        private volatile RunHandle run;
        private volatile Thread thread;

        Job(String id) {
            this.id = id;
        }

        void cancel() {
            cancelled = true;
            var handle = run;
            if (handle != null) handle.cancel(CANCEL_REASON);
            synchronized (capacity) {
                capacity.notifyAll(); // a queued one wakes to end
            }
        }

        /** Its run started (or was taken over): a cancel asked meanwhile reaches it. */
        void started(RunHandle handle) {
            run = handle;
            if (cancelled) handle.cancel(CANCEL_REASON);
        }

        void start(Work work) {
            thread = Thread.ofVirtual().name("background-" + id).unstarted(() -> {
                try {
                    work.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) { // the database or the run service failed under it: say so, never stay queued
                    LOG.log(System.Logger.Level.ERROR, "Background response " + id + " failed", e);
                    var handle = run;
                    if (handle != null) handle.cancel("its background response failed");
                    try {
                        end(id, "failed", TurnOutput.INTERNAL_ERROR);
                    } catch (RuntimeException again) {
                        LOG.log(System.Logger.Level.ERROR, "Background response " + id + " could not be ended", again);
                    }
                } finally {
                    jobs.remove(id);
                    live.remove(id);
                    synchronized (capacity) {
                        capacity.notifyAll(); // a run ended: a queued one may start
                    }
                }
            });
            thread.start();
        }
    }

    /**
     * Starts {@code turn}'s run once the server's and its key's caps let it, as a durable run whose origin names the
     * response (so that it is resumed after a crash); null when the response ended before it started (cancelled, or
     * refused for good).
     */
    private RunHandle admit(Job job, ResolvedTurn turn) throws InterruptedException {
        var id = turn.envelope().id();
        while (true) {
            if (job.cancelled) {
                end(id, "cancelled", null);
                return null;
            }
            try {
                return ctx.runs().start(turn.run().withOrigin(ORIGIN + id), RunOptions.journaled().withoutWaiting()).handle();
            } catch (RunRejectedException e) {
                if (e.reason() != RunRejectedException.Reason.AT_CAPACITY) {
                    end(id, "failed", e.getMessage());
                    return null;
                }
            }
            synchronized (capacity) {
                if (!job.cancelled) capacity.wait(ADMISSION_RETRY.toMillis());
            }
        }
    }

    /** Journals one frame numbered {@code seq} of response {@code id}, sent to nobody. */
    private void journal(String id, long seq, String type, ObjectNode response) {
        try {
            new EventWriter(DetachedStream.INSTANCE, store, id, seq, Long.MAX_VALUE).emit(type, ResponseEvents.response(response));
        } catch (ClientGoneException e) {
            throw new IllegalStateException(e); // a detached stream never reports a client gone
        }
    }
}
