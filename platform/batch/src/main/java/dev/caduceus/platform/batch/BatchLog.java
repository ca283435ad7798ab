package dev.caduceus.platform.batch;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.Locale;

/**
 * {@code batch.log} of one invocation: one line per prompt start, end, discard and
 * failure with its duration, then the run's summary; each line is flushed (not fsynced) as it is
 * written. The previous invocations' logs are rotated to {@code batch.log.1} … {@code .9} when this
 * one opens. Thread-safe; close once at the end of the invocation.
 */
final class BatchLog implements Closeable {
    private final BufferedWriter out;

    private BatchLog(BufferedWriter out) {
        this.out = out;
    }

    /** Rotates the older logs and opens a fresh {@code batch.log} in the run folder. */
    static BatchLog open(RunFolder folder) throws IOException {
        Files.createDirectories(folder.dir());
        folder.rotateLog();
        return new BatchLog(Files.newBufferedWriter(folder.log(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE));
    }

    /** One timestamped line; a failing disk is not worth failing the run for. */
    synchronized void line(String text) {
        try {
            out.write(LocalDateTime.now().format(PromptRunner.TIMESTAMP));
            out.write(' ');
            out.write(text.replace('\n', ' '));
            out.write('\n');
            out.flush();
        } catch (IOException ignored) {
            // the log is a convenience; the checkpoint and batch files are the record
        }
    }

    /** {@code <prefix> <what> in 1.234s[: detail]}. */
    void prompt(String prefix, String what, long startNanos, String detail) {
        line(prefix + " " + what + String.format(Locale.ROOT, " in %.3fs", (System.nanoTime() - startNanos) / 1e9)
                + (detail == null ? "" : ": " + detail));
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
