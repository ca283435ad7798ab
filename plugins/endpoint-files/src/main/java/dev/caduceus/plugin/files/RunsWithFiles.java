package dev.caduceus.plugin.files;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The runs for which this server kept files lately ({@code deliver_file} or {@code outputs/}), so that the turn's
 * endpoint asks the database for a run's files only when there are some. The newest {@value #KEPT} run ids; a run
 * older than those is looked up in the database as any other. Thread-safe.
 */
final class RunsWithFiles {
    static final int KEPT = 10_000;
    private final Map<String, Boolean> runs = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KEPT;
        }
    };

    synchronized void kept(String runId) {
        runs.put(runId, Boolean.TRUE);
    }

    synchronized boolean any(String runId) {
        return runs.containsKey(runId);
    }
}
