package dev.caduceus.plugin.responses;

import dev.caduceus.spi.http.ClientGoneException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunOptions;
import dev.caduceus.spi.agent.RunRejectedException;
import dev.caduceus.spi.http.ApiError;
import dev.caduceus.spi.message.Usage;
import dev.caduceus.support.stream.EventPump;
import java.time.Duration;
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
 * {@code live}, whose stream leases the plugin renews. Thread-safe.
 */
final class BackgroundResponses {
    /** The run's cancel reason when its caller cancels it (the stream then ends {@code cancelled}). */
    static final String CANCEL_REASON = "cancelled by the client";
    /** How often a queued response retries admission when no run of this plugin ended meanwhile. */
    private static final Duration ADMISSION_RETRY = Duration.ofMillis(250);

    private final PlatformContext ctx;
    private final ResponseStore store;
    private final Set<String> live;
    private final int maxQueued;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final Object capacity = new Object();

    BackgroundResponses(PlatformContext ctx, ResponseStore store, Set<String> live, int maxQueued) {
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
        var job = new Job(turn, stream);
        try {
            live.add(id);
            store.save(turn.snapshot(body, turn.envelope().createdAt()), turn.write(List.of()), turn.request().conversation());
            if (webhook != null) store.attachWebhook(id, webhook); // before its thread can end it
            journal(id, 0, "response.created", body.deepCopy());
            journal(id, 1, "response.queued", body.deepCopy());
            jobs.put(id, job);
            job.thread = Thread.ofVirtual().name("background-" + id).unstarted(job::run);
            job.thread.start();
        } catch (RuntimeException e) {
            queued.decrementAndGet();
            live.remove(id);
            jobs.remove(id);
            throw e;
        }
        return body;
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

    /** One background response: waits for admission, then runs its stream to the end. */
    private final class Job {
        private final ResolvedTurn turn;
        private final ResponseStream stream;
        private volatile boolean cancelled;
        private volatile RunHandle run;
        private volatile Thread thread;

        Job(ResolvedTurn turn, ResponseStream stream) {
            this.turn = turn;
            this.stream = stream;
        }

        void cancel() {
            cancelled = true;
            var handle = run;
            if (handle != null) handle.cancel(CANCEL_REASON);
            synchronized (capacity) {
                capacity.notifyAll(); // a queued one wakes to end
            }
        }

        void run() {
            var id = turn.envelope().id();
            try {
                var handle = admit();
                if (handle == null) return;
                run = handle;
                if (cancelled) handle.cancel(CANCEL_REASON);
                stream.runDetached(handle, new EventPump(Duration.ofSeconds(ctx.global().sseKeepaliveSeconds())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                jobs.remove(id);
                live.remove(id);
                synchronized (capacity) {
                    capacity.notifyAll(); // a run ended: a queued one may start
                }
            }
        }

        /** The started run, or null when the response ended before it started (cancelled, or refused for good). */
        private RunHandle admit() throws InterruptedException {
            try {
                while (true) {
                    if (cancelled) {
                        end("cancelled", null);
                        return null;
                    }
                    try {
                        return ctx.runs().start(turn.run(), RunOptions.ephemeral()).handle();
                    } catch (RunRejectedException e) {
                        if (e.reason() != RunRejectedException.Reason.AT_CAPACITY) {
                            end("failed", Envelope.error(e.getMessage()));
                            return null;
                        }
                    }
                    synchronized (capacity) {
                        if (!cancelled) capacity.wait(ADMISSION_RETRY.toMillis());
                    }
                }
            } finally {
                queued.decrementAndGet();
            }
        }

        /** Ends the response before its run started: its snapshot and terminal frame. */
        private void end(String status, ObjectNode error) {
            var body = turn.envelope().build(status, Envelope.JSON.arrayNode(), Usage.ZERO, error);
            store.save(turn.snapshot(body, turn.envelope().createdAt()), turn.write(List.of()), turn.request().conversation());
            journal(turn.envelope().id(), ResponseStream.BACKGROUND_FIRST_SEQ,
                    status.equals("cancelled") ? "response.cancelled" : "response.failed", body);
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
