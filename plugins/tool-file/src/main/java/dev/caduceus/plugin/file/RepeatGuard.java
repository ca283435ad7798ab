package dev.caduceus.plugin.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The per-session repeat guard of {@code read_file} and {@code search_files}:
 * the same region read (or the same search run) 3 times in a row earns a warning, the 4th is blocked.
 *
 * <p>This plugin cannot see calls of other plugins' tools, so a counter resets on a new run of the
 * session, on any {@code write_file}/{@code patch} call, and (for reads) when the file's size or
 * modification time changed. Thread-safe; remembers at most {@value #MAX_SESSIONS} sessions.
 */
final class RepeatGuard {
    static final int WARN_AT = 3;
    static final int BLOCK_AT = 4;
    private static final int MAX_SESSIONS = 1024;

    private final Map<String, State> sessions = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    /** What the guard remembers for one session. */
    private record State(String runId, String readKey, int reads, String searchKey, int searches) {}

    /** Counts a read of {@code key}; returns how many times in a row it has now been read. */
    synchronized int read(String sessionId, String runId, String key) {
        var s = current(sessionId, runId);
        int n = key.equals(s.readKey()) ? s.reads() + 1 : 1;
        sessions.put(sessionId, new State(runId, key, n, null, 0));
        return n;
    }

    /** Counts a search of {@code key}; returns how many times in a row it has now been run. */
    synchronized int search(String sessionId, String runId, String key) {
        var s = current(sessionId, runId);
        int n = key.equals(s.searchKey()) ? s.searches() + 1 : 1;
        sessions.put(sessionId, new State(runId, s.readKey(), s.reads(), key, n));
        return n;
    }

    private final Map<String, Integer> patchFailures = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    /** Counts a {@code patch} that found no match in {@code file}; returns the consecutive failures. */
    synchronized int patchFailed(String sessionId, String file) {
        return patchFailures.merge(sessionId + "\u0000" + file, 1, Integer::sum);
    }

    /** A {@code patch} of {@code file} found its text: the failure count starts over. */
    synchronized void patched(String sessionId, String file) {
        patchFailures.remove(sessionId + "\u0000" + file);
    }

    /** A call of another tool: both counters start over. */
    synchronized void reset(String sessionId) {
        sessions.remove(sessionId);
    }

    private State current(String sessionId, String runId) {
        var s = sessions.get(sessionId);
        return s == null || !s.runId().equals(runId) ? new State(runId, null, 0, null, 0) : s;
    }
}
