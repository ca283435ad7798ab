package dev.caduceus.platform.host.boot;

import java.util.ArrayList;
import java.util.List;

/** Times the boot steps for the start-up log line ({@code Booted in 412 ms: config 30, …}). */
public final class BootTimer {
    private final long start = System.nanoTime();
    private final long processStart = processStart();
    private final List<String> laps = new ArrayList<>();
    private long last = start;

    /**
     * When bin/caduceus started ({@code caduceus.launched.ms}), else the process start as the JDK sees it,
     * which on Linux is derived from the boot time rounded to the second (so up to a second early).
     */
    private static long processStart() {
        try {
            var launched = System.getProperty("caduceus.launched.ms");
            if (launched != null) return Long.parseLong(launched);
        } catch (NumberFormatException ignored) {
            // fall through
        }
        return ProcessHandle.current().info().startInstant().map(i -> i.toEpochMilli())
                .orElse(System.currentTimeMillis());
    }

    public void lap(String step) {
        var now = System.nanoTime();
        laps.add(step + " " + (now - last) / 1_000_000);
        last = now;
    }

    @Override
    public String toString() {
        var sinceProcessStart = System.currentTimeMillis() - processStart;
        return (last - start) / 1_000_000 + " ms (" + String.join(", ", laps) + "); " + sinceProcessStart
                + " ms since the process started";
    }
}
