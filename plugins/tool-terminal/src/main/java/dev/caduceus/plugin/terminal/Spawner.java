package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts every child process of the plugin from one long-lived platform thread.
 *
 * <p>Why: the kernel's parent-death signal ({@code PR_SET_PDEATHSIG}, which bubblewrap's
 * {@code --die-with-parent} and {@code setpriv --pdeathsig} set) fires when the <em>thread</em>
 * that forked the child ends, not the process. {@link ProcessBuilder#start()} forks on the calling
 * thread, and a virtual thread's carrier or a pool thread may end at any time, which would kill a
 * long-running background process. This thread lives until {@link #close()} (plugin stop), so the
 * signal fires exactly when the server dies, {@code kill -9} included.
 *
 * <p>Threading: thread-safe; callers block until their process has started.
 */
final class Spawner implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        var t = new Thread(r, "terminal-spawner");
        t.setDaemon(true);
        return t;
    });

    /** Starts {@code builder} on the spawner thread. */
    Process start(ProcessBuilder builder) throws IOException, InterruptedException {
        Future<Process> started = thread.submit(builder::start);
        try {
            return started.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            throw new IOException("cannot start " + builder.command().getFirst() + ": " + e.getCause(), e.getCause());
        }
    }

    @Override
    public void close() {
        thread.shutdown();
    }
}
