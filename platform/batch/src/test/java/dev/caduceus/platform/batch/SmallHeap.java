package dev.caduceus.platform.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one step of a batch run over files on disk in a child JVM with a 32 MiB heap (the test JVM's
 * heap is far larger than a user's): a step that holds the run in memory dies there with
 * {@code OutOfMemoryError}. {@link #run} from a test; {@link #main} in the child.
 */
final class SmallHeap {
    private SmallHeap() {}

    /** Runs {@code step} with {@code args} in the child; its one line of output, asserted exit 0. */
    static String run(String step, String... args) throws Exception {
        var java = ProcessHandle.current().info().command().orElse("java");
        var command = new java.util.ArrayList<>(List.of(java, "-Xmx32m", "-cp", System.getProperty("java.class.path"),
                SmallHeap.class.getName(), step));
        command.addAll(List.of(args));
        var child = new ProcessBuilder(command).redirectErrorStream(true).start();
        var output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), step + " did not end");
        assertEquals(0, child.exitValue(), step + " in 32 MiB failed:\n" + output);
        return output;
    }

    public static void main(String[] args) throws Exception {
        var json = new ObjectMapper();
        switch (args[0]) {
            case "merge" -> System.out.println(new RunFolder(Path.of(args[1])).merge(Set.of(), json));
            case "checkpoint" -> {
                var c = Checkpoint.read(Path.of(args[1]), "big", json);
                AtomicFiles.replace(Path.of(args[2]), c::write);
                System.out.println(c.completed.cardinality() + " done, " + c.discarded.nextSetBit(0) + " discarded");
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
