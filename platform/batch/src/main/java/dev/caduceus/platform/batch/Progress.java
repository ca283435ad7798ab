package dev.caduceus.platform.batch;

import java.io.PrintStream;

/**
 * What a person watches while a batch runs: on a terminal a bar on stderr, counted in
 * prompts, redrawn at most once per second with log lines printed above it; otherwise one plain line
 * per finished batch. Thread-safe: workers report concurrently.
 */
abstract sealed class Progress {
    protected final String runName;
    protected final int total;
    protected final PrintStream err;
    protected final long startNanos = System.nanoTime();
    protected int done;
    protected int ok;
    protected int discarded;
    protected int failed;

    Progress(String runName, int total, int alreadyDone, PrintStream err) {
        this.runName = runName;
        this.total = total;
        this.done = alreadyDone;
        this.err = err;
    }

    /** The bar when {@code terminal} and not {@code --no_progress}, else plain lines. */
    static Progress create(String runName, int total, int alreadyDone, PrintStream err, boolean terminal,
                           boolean noProgress) {
        return terminal && !noProgress ? new Bar(runName, total, alreadyDone, err)
                : new Lines(runName, total, alreadyDone, err, noProgress);
    }

    /**
     * A terminal on the console (JDK 22+: {@code System.console().isTerminal()}, called reflectively
     * because the code is compiled for release 21, where a non-null console already means a terminal).
     */
    static boolean stderrIsTerminal() {
        var console = System.console();
        if (console == null) return false;
        try {
            return (boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    synchronized void prompt(PromptOutcome outcome) {
        switch (outcome) {
            case PromptOutcome.Success s -> { done++; ok++; }
            case PromptOutcome.Discarded d -> { done++; discarded++; }
            case PromptOutcome.Failed f -> { done++; failed++; }
            case PromptOutcome.Interrupted i -> { }
        }
        redraw(false);
    }

    abstract void batchDone(int batchNum, int processed, int failedInBatch, int discardedInBatch);

    /** A log line that must not be overwritten by the bar. */
    abstract void log(String line);

    abstract void redraw(boolean force);

    abstract void finish();

    static String clock(long seconds) {
        return String.format("%02d:%02d:%02d", seconds / 3600, (seconds / 60) % 60, seconds % 60);
    }

    static final class Bar extends Progress {
        private static final int WIDTH = 24;
        private long lastDraw;
        private final int startDone;

        Bar(String runName, int total, int alreadyDone, PrintStream err) {
            super(runName, total, alreadyDone, err);
            this.startDone = alreadyDone;
        }

        @Override
        synchronized void batchDone(int batchNum, int processed, int failedInBatch, int discardedInBatch) {
            redraw(false);
        }

        @Override
        synchronized void log(String line) {
            err.print("\r\033[K" + line + "\n");
            redraw(true);
        }

        @Override
        synchronized void redraw(boolean force) {
            long now = System.nanoTime();
            if (!force && now - lastDraw < 1_000_000_000L) return;
            lastDraw = now;
            err.print("\r\033[K" + render(now));
            err.flush();
        }

        String render(long now) {
            int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
            long elapsed = (now - startNanos) / 1_000_000_000L;
            int fresh = done - startDone;
            long eta = fresh <= 0 ? 0 : (long) ((double) elapsed / fresh * (total - done));
            return String.format("%s  [%s%s]  %d/%d  ok %d  discarded %d  failed %d  %s < %s", runName,
                    "█".repeat(filled), "░".repeat(WIDTH - filled), done, total, ok, discarded, failed,
                    clock(elapsed), clock(eta));
        }

        @Override
        synchronized void finish() {
            redraw(true);
            err.print("\n");
            err.flush();
        }
    }

    static final class Lines extends Progress {
        private final boolean quiet;

        Lines(String runName, int total, int alreadyDone, PrintStream err, boolean quiet) {
            super(runName, total, alreadyDone, err);
            this.quiet = quiet;
        }

        @Override
        synchronized void batchDone(int batchNum, int processed, int failedInBatch, int discardedInBatch) {
            if (quiet) return;
            err.println("batch " + batchNum + " done: " + processed + " processed, " + failedInBatch + " failed, "
                    + discardedInBatch + " discarded (" + done + "/" + total + ")");
            err.flush();
        }

        @Override
        synchronized void log(String line) {
            err.println(line);
        }

        @Override
        void redraw(boolean force) { }

        @Override
        void finish() { }
    }
}
