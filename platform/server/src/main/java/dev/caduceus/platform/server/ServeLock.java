package dev.caduceus.platform.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * {@code $CADUCEUS_HOME/serve.lock}: held (an OS file lock, released when the process ends however
 * it ends) while {@code serve} runs on that state directory, with the server's PID in it, so other
 * commands can tell that a server uses it ({@code profile delete} refuses then). Taking it never
 * stops a start: a second server on the same directory runs as before, without the lock.
 */
final class ServeLock implements AutoCloseable {
    static final String NAME = "serve.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private ServeLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock of {@code home}, or returns empty when another process holds it or it cannot be made. */
    static Optional<ServeLock> acquire(Path home) {
        FileChannel channel = null;
        try {
            Files.createDirectories(home);
            channel = FileChannel.open(home.resolve(NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            var lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return Optional.empty();
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
            channel.force(false);
            return Optional.of(new ServeLock(channel, lock));
        } catch (IOException | OverlappingFileLockException | UnsupportedOperationException e) {
            closeQuietly(channel);
            return Optional.empty();
        }
    }

    /**
     * The PID of the server holding {@code home}'s lock, or empty when none does. Checking briefly
     * takes the lock, so it must not run against this process's own state directory.
     */
    static Optional<String> holder(Path home) {
        var file = home.resolve(NAME);
        if (!Files.isRegularFile(file)) return Optional.empty();
        try (var channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            var lock = channel.tryLock();
            if (lock != null) {
                lock.release();
                return Optional.empty();
            }
            var pid = Files.readString(file, StandardCharsets.US_ASCII).strip();
            return Optional.of(pid.isEmpty() ? "unknown" : pid);
        } catch (OverlappingFileLockException e) {
            return Optional.of(String.valueOf(ProcessHandle.current().pid()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // the channel's close below releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) return;
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
