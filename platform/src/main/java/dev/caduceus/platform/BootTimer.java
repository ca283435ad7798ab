package dev.caduceus.platform;

import java.util.ArrayList;
import java.util.List;

/** Times the boot steps for the start-up log line ({@code Booted in 412 ms: config 30, …}). */
final class BootTimer {
    private final long start = System.nanoTime();
    private final long jvmStart = ProcessHandle.current().info().startInstant()
            .map(i -> i.toEpochMilli()).orElse(System.currentTimeMillis());
    private final List<String> laps = new ArrayList<>();
    private long last = start;

    void lap(String step) {
        var now = System.nanoTime();
        laps.add(step + " " + (now - last) / 1_000_000);
        last = now;
    }

    @Override
    public String toString() {
        var sinceProcessStart = System.currentTimeMillis() - jvmStart;
        return (last - start) / 1_000_000 + " ms (" + String.join(", ", laps) + "); " + sinceProcessStart
                + " ms since the process started";
    }
}
