package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Background processes by session: at most {@code max_per_session} running
 * per session, killed after {@code max_lifetime_seconds} ({@link #reapExpired}, run periodically by
 * the plugin), at plugin stop ({@link #killAll}) and — once the runtime reports session ends or
 * stops — by {@link #killSession}, which is the hook for that. Exited processes stay listed (the
 * newest {@value #KEEP_EXITED} per session) so their output can still be read.
 *
 * <p>Threading: thread-safe; bookkeeping is synchronized, kills happen outside the lock.
 */
final class ProcessRegistry {
    static final int KEEP_EXITED = 16;

    private final TerminalSettings settings;
    private final Clock clock;
    private final Backend backend;
    private final Map<String, Map<String, BackgroundProcess>> bySession = new LinkedHashMap<>();

    /** Thrown when the session already has {@code max_per_session} running processes. */
    static final class LimitReachedException extends Exception {
        LimitReachedException(String message) {
            super(message);
        }
    }

    ProcessRegistry(TerminalSettings settings, Clock clock, Backend backend) {
        this.settings = settings;
        this.clock = clock;
        this.backend = backend;
    }

    /**
     * Starts {@code command} detached from the turn in {@code dir} (a view path), stdin a pipe,
     * output in a ring buffer.
     */
    synchronized BackgroundProcess start(String session, String command, Path workspace, Path dir,
                                         Map<String, String> env)
            throws IOException, InterruptedException, LimitReachedException {
        var mine = bySession.computeIfAbsent(session, s -> new LinkedHashMap<>());
        long running = mine.values().stream().filter(BackgroundProcess::running).count();
        if (running >= settings.maxPerSession())
            throw new LimitReachedException("Too many background processes: " + running + " are running in this session "
                    + "(limit " + settings.maxPerSession() + ", tools.process.max_per_session). Kill one with the process "
                    + "tool or wait for one to finish.");
        var shell = ShellProcess.start(backend, new Backend.Invocation(List.of(settings.shell(), "-c", command), session,
                workspace, dir, env, null, true), new CappedOutput(0, BackgroundProcess.RING_CHARS));
        var process = new BackgroundProcess(newId(), session, command, shell, clock);
        mine.put(process.id(), process);
        pruneExited(mine);
        return process;
    }

    /** A process of {@code session}; other sessions' processes are invisible. */
    synchronized Optional<BackgroundProcess> get(String session, String id) {
        return Optional.ofNullable(bySession.getOrDefault(session, Map.of()).get(id));
    }

    /** The session's processes, oldest first. */
    synchronized List<BackgroundProcess> list(String session) {
        return List.copyOf(bySession.getOrDefault(session, Map.of()).values());
    }

    /** Kills every running process older than {@code max_lifetime_seconds}. */
    void reapExpired() throws InterruptedException {
        var deadline = clock.instant().minus(settings.maxLifetime());
        killAtOnce(all().stream().filter(p -> p.running() && p.startedAt().isBefore(deadline)).toList());
    }

    /** Kills a session's processes and forgets them: the hook for session end and stop. */
    void killSession(String session) throws InterruptedException {
        List<BackgroundProcess> victims;
        synchronized (this) {
            var mine = bySession.remove(session);
            victims = mine == null ? List.of() : List.copyOf(mine.values());
        }
        killAtOnce(victims);
    }

    /** Kills everything and forgets it (plugin stop). */
    void killAll() throws InterruptedException {
        List<BackgroundProcess> victims;
        synchronized (this) {
            victims = all();
            bySession.clear();
        }
        killAtOnce(victims);
    }

    /**
     * Kills {@code victims} side by side, each on a virtual thread of its own, and returns when all are
     * dead: a stop or a session end waits one grace period, not one per process.
     */
    private void killAtOnce(List<BackgroundProcess> victims) throws InterruptedException {
        var killers = new ArrayList<Thread>(victims.size());
        for (var p : victims)
            killers.add(Thread.ofVirtual().name("kill-" + p.id()).start(() -> {
                try {
                    p.kill(settings.killGrace());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        for (var killer : killers) killer.join();
    }

    private synchronized List<BackgroundProcess> all() {
        var all = new ArrayList<BackgroundProcess>();
        bySession.values().forEach(m -> all.addAll(m.values()));
        return all;
    }

    private static void pruneExited(Map<String, BackgroundProcess> mine) {
        var exited = mine.values().stream().filter(p -> !p.running()).toList();
        for (int i = 0; i < exited.size() - KEEP_EXITED; i++) mine.remove(exited.get(i).id());
    }

    private static String newId() {
        var bytes = new byte[6];
        ThreadLocalRandom.current().nextBytes(bytes);
        return "proc_" + HexFormat.of().formatHex(bytes);
    }
}
