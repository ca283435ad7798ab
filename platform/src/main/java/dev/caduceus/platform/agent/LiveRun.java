package dev.caduceus.platform.agent;

import dev.caduceus.spi.Cancellation;
import dev.caduceus.spi.agent.JournalEntry;
import dev.caduceus.spi.agent.RunContext;
import dev.caduceus.spi.agent.RunEvent;
import dev.caduceus.spi.agent.RunHandle;
import dev.caduceus.spi.agent.RunRequest;
import dev.caduceus.spi.agent.RunResult;
import dev.caduceus.spi.agent.RunSubscription;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;

/**
 * One run as {@link RunService} tracks it: its request, cancellation, steering inbox, result and
 * its {@link RunContext}, which numbers events 1, 2, 3… on the run thread. Thread-safe as a
 * {@link RunHandle}; the context is used by the run thread only.
 */
final class LiveRun implements RunHandle {
    private final String id;
    private final RunRequest request;
    private final EventLog log;
    private final Clock clock;
    private final RunCancellation cancellation = new RunCancellation();
    private final ConcurrentLinkedQueue<String> steering = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private long seq;

    LiveRun(String id, RunRequest request, EventLog log, Clock clock) {
        this.id = id;
        this.request = request;
        this.log = log;
        this.clock = clock;
    }

    @Override
    public String id() {
        return id;
    }

    RunRequest request() {
        return request;
    }

    RunCancellation cancellation() {
        return cancellation;
    }

    boolean finished() {
        return result.isDone();
    }

    @Override
    public RunSubscription subscribe(long afterSeq) {
        return new LogSubscription(log, id, afterSeq);
    }

    @Override
    public RunResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void cancel(String reason) {
        cancellation.cancel(reason);
    }

    /** Queues steering text; false once the run has ended or is being stopped. */
    boolean steer(String text) {
        if (result.isDone() || cancellation.isCancelled()) return false;
        steering.add(text);
        return true;
    }

    /** Commits the next event (run thread only). */
    void append(RunEvent event) {
        log.append(new JournalEntry(id, ++seq, clock.instant(), event));
    }

    void complete(RunResult value) {
        result.complete(value);
    }

    /** The context handed to the runtime; it refuses terminal events, which the service writes. */
    RunContext context() {
        return new RunContext() {
            @Override
            public String runId() {
                return id;
            }

            @Override
            public void emit(RunEvent event) {
                if (event.isTerminal())
                    throw new IllegalArgumentException("terminal events are written by the host: " + event);
                append(event);
            }

            @Override
            public Cancellation cancellation() {
                return cancellation;
            }

            @Override
            public List<String> drainSteering() {
                var out = new ArrayList<String>();
                for (String s; (s = steering.poll()) != null; ) out.add(s);
                return out;
            }
        };
    }
}
