package dev.caduceus.platform.host.store;

import dev.caduceus.spi.store.PluginDatabase.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The one writer thread of a {@link Database} and its handle, committing in groups.
 *
 * <p>Callers queue writes and wait. The thread takes the oldest write together with every write
 * queued behind it (up to {@value #MAX_GROUP}) and runs them in order in one IMMEDIATE transaction.
 * Results are handed out only after the commit, so a caller never sees a write that a crash could
 * take back. The cost of a commit is thus shared by every write that arrived while the previous one
 * ran — under load, one commit for many chat turns instead of one each.
 *
 * <p>If a write of the group throws, or the shared transaction breaks (the commit fails), nothing of
 * it is committed and every write of the group is run again alone, each in its own transaction, so a
 * write only ever fails for its own reasons and the others commit. Writes rarely fail, so the group
 * runs without a savepoint per write (two statements each, a tenth of the writer's time per chat
 * turn; bench/README.md, issue 48) and pays for a failure by running its writes again. Writes marked {@code alone} (migrations, which run
 * multi-statement scripts) always get a transaction of their own.
 *
 * <p>Threading: {@link #write} from any thread but the writer itself. Lifecycle: {@link #close}
 * refuses new writes, lets queued ones finish, closes the handle and ends the thread.
 */
final class GroupCommitWriter implements AutoCloseable {
    static final int MAX_GROUP = 256;
    /** How long a write that finds the writer idle waits for others to share its commit (see {@link #linger}). */
    static final long LINGER_NANOS = java.util.concurrent.TimeUnit.MICROSECONDS.toNanos(500);

    /** One queued write and the future its caller waits on; {@code value}/{@code failure} are the writer's. */
    private static final class Write<T> {
        final Database.HandleWork<T> work;
        final boolean alone;
        final CompletableFuture<T> result = new CompletableFuture<>();
        T value;
        Throwable failure;

        Write(Database.HandleWork<T> work, boolean alone) {
            this.work = work;
            this.alone = alone;
        }

        void run(Handle handle) {
            try {
                value = work.run(handle);
                failure = null;
            } catch (Throwable t) {
                value = null;
                failure = t;
            }
        }

        void settle() {
            if (failure != null) result.completeExceptionally(failure);
            else result.complete(value);
        }
    }

    private final Jdbi jdbi;
    private final LinkedBlockingQueue<Write<?>> queue = new LinkedBlockingQueue<>();
    private final Write<Void> stop = new Write<>(h -> null, true);
    private final CompletableFuture<Handle> opened = new CompletableFuture<>();
    private final ReentrantLock admission = new ReentrantLock();
    private final Thread thread;
    private boolean closed; // guarded by admission
    private long lastGroup; // the writer thread's: when it took the last group (read only once there is company)
    private boolean company; // the writer thread's: the last group had several writes, or one came during its commit

    private GroupCommitWriter(Jdbi jdbi) {
        this.jdbi = jdbi;
        this.thread = Thread.ofPlatform().name("caduceus-db-writer").daemon(false).unstarted(this::loop);
    }

    /** Starts the writer thread, which opens its handle first (that switches the file to WAL). */
    static GroupCommitWriter start(Jdbi jdbi) throws Exception {
        var writer = new GroupCommitWriter(jdbi);
        writer.thread.start();
        try {
            writer.opened.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        return writer;
    }

    /** Queues {@code work} and waits until the transaction that ran it committed; returns its result. */
    <T> T write(Database.HandleWork<T> work, boolean alone) {
        if (Thread.currentThread() == thread)
            throw new StoreException("write() called from inside a write; do all the work in one call", null);
        var write = new Write<>(work, alone);
        admission.lock();
        try {
            if (closed) throw new StoreException("database is closed", null);
            queue.add(write);
        } finally {
            admission.unlock();
        }
        try {
            return write.result.get();
        } catch (InterruptedException e) {
            write.result.cancel(false); // not yet started: never run it; already running: it completes
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the database writer", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof StoreException se ? se : wrap(e.getCause());
        }
    }

    /** Writes waiting for the writer thread (tests use it to line up a group). */
    int queued() {
        return queue.size();
    }

    private static StoreException wrap(Throwable cause) {
        return new StoreException("Database write failed" + (cause == null ? "" : ": " + cause), cause);
    }

    private void loop() {
        Handle handle;
        try {
            handle = jdbi.open();
        } catch (RuntimeException | Error e) {
            opened.completeExceptionally(e);
            return;
        }
        opened.complete(handle);
        try (handle) {
            var group = new ArrayList<Write<?>>();
            while (true) {
                var first = takeUninterruptibly();
                if (first == stop) return;
                group.add(first);
                long now = System.nanoTime();
                if (!first.alone && company && queue.isEmpty() && now - lastGroup < 2 * LINGER_NANOS) linger();
                lastGroup = now;
                Write<?> next;
                while (!first.alone && group.size() < MAX_GROUP && (next = queue.peek()) != null && !next.alone)
                    group.add(queue.poll());
                commit(handle, group);
                company = group.size() > 1 || !queue.isEmpty();
                group.clear();
            }
        }
    }

    private Write<?> takeUninterruptibly() {
        while (true) {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                // only close() may end the loop, through the stop marker
            }
        }
    }

    /**
     * Waits {@link #LINGER_NANOS} for more writes to join the group, when the first write came alone, less than twice
     * that after the group before, and there is company: the last group had several writes, or one arrived while it
     * committed. Without it, writes that arrive a little apart (chat turns at a few thousand a second) each paid a
     * commit and a wake-up of this thread (steady-ab: the writer's CPU per chat turn 24 -> 19 µs, the server's 184 ->
     * 169 µs; bench/README.md, issue 48). One client's writes, however fast, commit at once: it waits for its own
     * commit before it writes again, so nobody could join (lingering for it cost S1 at one connection a fifth of its
     * turns). Writes queued meanwhile do not wake the thread (the queue signals only a thread waiting on it).
     */
    private static void linger() {
        java.util.concurrent.locks.LockSupport.parkNanos(LINGER_NANOS);
    }

    private void commit(Handle handle, List<Write<?>> group) {
        group.removeIf(w -> w.result.isDone()); // cancelled by a caller that stopped waiting
        if (group.isEmpty()) return;
        if (group.size() == 1) {
            runAlone(handle, group.getFirst());
            return;
        }
        try {
            handle.begin();
        } catch (RuntimeException e) {
            group.forEach(w -> w.result.completeExceptionally(e)); // nothing ran: the database refused to start
            return;
        }
        try {
            for (var w : group) {
                w.run(handle);
                if (w.failure != null) { // what it wrote before it threw cannot be undone alone
                    rollbackQuietly(handle);
                    group.forEach(alone -> runAlone(handle, alone));
                    return;
                }
            }
            handle.commit();
        } catch (RuntimeException e) {
            rollbackQuietly(handle);
            group.forEach(w -> runAlone(handle, w));
            return;
        }
        group.forEach(Write::settle);
    }

    private static <T> void runAlone(Handle handle, Write<T> write) {
        try {
            write.value = handle.inTransaction(write.work::run);
            write.failure = null;
        } catch (Throwable t) {
            write.value = null;
            write.failure = t;
        }
        write.settle();
    }

    private static void rollbackQuietly(Handle handle) {
        try {
            if (handle.isInTransaction()) handle.rollback();
        } catch (RuntimeException e) {
            // the connection is broken; each write now runs alone and reports its own failure
        }
    }

    /** Refuses new writes, waits up to {@code wait} for queued ones, then ends the thread. Idempotent. */
    void close(Duration wait) {
        admission.lock();
        try {
            if (closed) return;
            closed = true;
            queue.add(stop);
        } finally {
            admission.unlock();
        }
        try {
            if (!thread.join(wait)) thread.interrupt();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
