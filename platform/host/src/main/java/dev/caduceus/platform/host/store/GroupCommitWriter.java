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
 * <p>{@link #writeMerged Merged} writes of one kind in a group run as one call with all their items (a chat turn's
 * session append: one upsert and one insert for the group's turns instead of two statements each), after the group's
 * other writes: the writes of one group come from callers that did not wait for each other, so no order among them is
 * theirs to rely on. Alone, or when its group fails, such a write runs with its own item only.
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
        final Merged<?> merged; // null: not mergeable
        final CompletableFuture<T> result = new CompletableFuture<>();
        T value;
        Throwable failure;

        Write(Database.HandleWork<T> work, boolean alone) {
            this.work = work;
            this.alone = alone;
            this.merged = null;
        }

        Write(Merged<?> merged, Database.HandleWork<T> work) {
            this.work = work;
            this.alone = false;
            this.merged = merged;
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

    /** A mergeable write: its kind (writes of the same kind object merge), the work that runs a kind's items, its item. */
    private record Merged<I>(Object kind, MergedWork<I> work, I item) {}

    /** Work whose items many writes of one group can do in one run, in this handle's transaction. */
    @FunctionalInterface
    interface MergedWork<I> {
        void run(Handle handle, List<I> items) throws Exception;
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
    // the writer thread's: the mean time between writes over the last window of 10 ms or more (until the first ends, the
    // longest), and the start and writes so far of the window under way
    private long writeGap = Long.MAX_VALUE;
    private long windowStart = System.nanoTime();
    private long windowWrites;
    private boolean lingerPaid = true; // the writer thread's: no linger found nobody since the last company

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
        return await(new Write<>(work, alone));
    }

    /**
     * Queues {@code item}, which the writer runs through {@code work} together with the items of the other writes of
     * {@code kind} (the same object) in its group, and waits until the transaction that ran it committed. Every write
     * of one kind must pass equivalent work: the first one's runs them all.
     */
    <I> void writeMerged(Object kind, MergedWork<I> work, I item) {
        await(new Write<Void>(new Merged<>(kind, work, item), h -> {
            work.run(h, List.of(item));
            return null;
        }));
    }

    private <T> T await(Write<T> write) {
        if (Thread.currentThread() == thread)
            throw new StoreException("write() called from inside a write; do all the work in one call", null);
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
                boolean lingered = !first.alone && queue.isEmpty() && (company && now - lastGroup < 2 * LINGER_NANOS
                        || lingerPaid && writeGap < LINGER_NANOS);
                if (lingered) linger();
                lastGroup = now;
                Write<?> next;
                while (!first.alone && group.size() < MAX_GROUP && (next = queue.peek()) != null && !next.alone)
                    group.add(queue.poll());
                int size = group.size(); // before commit drops the cancelled
                commit(handle, group);
                company = size > 1 || !queue.isEmpty();
                lingerPaid = company || lingerPaid && !lingered; // a linger that found nobody stops them till company
                windowWrites += size;
                if (now - windowStart >= 20 * LINGER_NANOS) {
                    writeGap = (now - windowStart) / windowWrites;
                    windowStart = now;
                    windowWrites = 0;
                }
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
     * Waits {@link #LINGER_NANOS} for more writes to join the group, when the first write came alone and either there
     * is company (the last group, less than twice that ago, had several writes, or one arrived while it committed) or
     * writes have lately come less than that apart (their mean gap over the last 10 ms or more) and no linger since the
     * last company was in vain. Without it, writes that arrive a little apart (chat turns at a few thousand a second) each paid a commit and a
     * wake-up of this thread (steady-ab: the writer's CPU per chat turn 24 -> 19 µs, the server's 184 -> 169 µs;
     * bench/README.md, issue 48). Company alone missed half of the groups at 64 connections: a write that found none
     * committed alone, and so did the next, until one arrived during a commit (S1: 45 % of the commits were of one
     * write). One client's writes, however fast, commit at once: it waits for its own commit before it writes again,
     * so nobody could join (lingering for it cost S1 at one connection a fifth of its turns): its first linger finds
     * nobody, and it lingers no more (it never has company). Writes queued meanwhile do not wake the thread (the queue
     * signals only a thread waiting on it).
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
            if (!runTogether(handle, group)) { // what a write did before it threw cannot be undone alone
                rollbackQuietly(handle);
                group.forEach(alone -> runAlone(handle, alone));
                return;
            }
            handle.commit();
        } catch (RuntimeException e) {
            rollbackQuietly(handle);
            group.forEach(w -> runAlone(handle, w));
            return;
        }
        group.forEach(Write::settle);
    }

    /**
     * Runs {@code group}'s writes in its transaction: each in turn, then the merged ones, one call per kind with their
     * items in queue order. False, with that write's (or that kind's first write's) failure set, when one threw.
     */
    private static boolean runTogether(Handle handle, List<Write<?>> group) {
        List<Object> kinds = null; // a group holds one kind or two: a list is the cheapest set
        for (var w : group) {
            if (w.merged != null) {
                if (kinds == null) kinds = new ArrayList<>(2);
                if (!containsSame(kinds, w.merged.kind())) kinds.add(w.merged.kind());
                continue;
            }
            w.run(handle);
            if (w.failure != null) return false;
        }
        if (kinds == null) return true;
        for (var kind : kinds) {
            var writes = group.stream().filter(w -> w.merged != null && w.merged.kind() == kind).toList();
            try {
                runMerged(handle, writes);
            } catch (Throwable t) {
                writes.getFirst().failure = t;
                return false;
            }
        }
        return true;
    }

    private static boolean containsSame(List<Object> kinds, Object kind) {
        for (var k : kinds) if (k == kind) return true;
        return false;
    }

    /** Runs {@code writes} (of one kind) as one call of the first one's work, with their items in order. */
    @SuppressWarnings("unchecked")
    private static <I> void runMerged(Handle handle, List<Write<?>> writes) throws Exception {
        var items = new ArrayList<I>(writes.size());
        for (var w : writes) items.add((I) w.merged.item());
        ((MergedWork<I>) writes.getFirst().merged.work()).run(handle, items);
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
