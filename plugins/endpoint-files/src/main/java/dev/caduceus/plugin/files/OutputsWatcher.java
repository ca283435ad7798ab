package dev.caduceus.plugin.files;

import dev.caduceus.spi.tool.ToolContext;
import dev.caduceus.support.files.WorkspaceFiles;
import dev.caduceus.support.services.WorkspaceWatcher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files the agent writes under the workspace's {@code outputs/} are delivered without a tool call: before a run's
 * first call of a tool that may write (not a read-only one) the directory is listed ({@link WorkspaceFiles#list}: size, modification time and identity of
 * each regular file, links never followed), and when the run ends every file that is new or changed since is kept
 * as that run's file, exactly as {@code deliver_file} keeps one (purpose {@code assistants_output}, the owner's
 * quota, expiring with the session retention), unless the run already delivered a file of that name and size with
 * the tool. At most {@code files.outputs_max_files} files a run (the first found); a listing looks at no more than
 * {@link #MAX_LISTED} entries (files and directories). Runs without an owner (the batch runner) are not watched.
 *
 * <p>Threading: thread-safe; the per-run listing is kept by run id between the two calls.
 */
final class OutputsWatcher implements WorkspaceWatcher {
    static final String DIRECTORY = "outputs";
    static final int MAX_LISTED = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(OutputsWatcher.class);

    private final FileIntake intake;
    private final FileStore files;
    private final Duration keep;
    private final int maxFiles;
    private final Clock clock;
    private final Map<String, Map<String, WorkspaceFiles.Stamp>> before = new ConcurrentHashMap<>();

    OutputsWatcher(FileIntake intake, FileStore files, Duration keep, int maxFiles, Clock clock) {
        this.intake = intake;
        this.files = files;
        this.keep = keep;
        this.maxFiles = maxFiles;
        this.clock = clock;
    }

    @Override
    public void beforeTools(ToolContext run) throws Exception {
        if (run.owner() == null) return;
        before.put(run.runId(), WorkspaceFiles.list(run.workspace(), DIRECTORY, MAX_LISTED));
    }

    @Override
    public void afterRun(ToolContext run) throws Exception {
        var was = before.remove(run.runId());
        if (was == null) return;
        var written = new ArrayList<String>();
        WorkspaceFiles.list(run.workspace(), DIRECTORY, MAX_LISTED).forEach((path, stamp) -> {
            if (!stamp.equals(was.get(path))) written.add(path);
        });
        if (written.isEmpty()) return;
        var delivered = files.ofRun(run.runId(), clock.instant()); // by the tool, in this run
        int kept = 0;
        for (var path : written) {
            if (kept == maxFiles) {
                LOG.info("Run {}: {} more files under outputs/ were not delivered (files.outputs_max_files is {})",
                        run.runId(), written.size() - kept, maxFiles);
                break;
            }
            if (keep(run, path, delivered)) kept++;
        }
    }

    /** Keeps workspace file {@code path} as a file of the run's owner; false when it was not kept. */
    private boolean keep(ToolContext run, String path, List<StoredFile> delivered) throws java.io.IOException {
        var delivery = intake.keepRunFile(run.owner(), run.runId(), run.workspace(), path, keep, // gone, a link, or delivered
                (name, bytes) -> delivered.stream().anyMatch(f -> f.filename().equals(name) && f.bytes() == bytes));
        if (delivery.isEmpty()) return false;
        return switch (delivery.get().outcome()) {
            case FileIntake.Outcome.Kept k -> true;
            case FileIntake.Outcome.TooLarge large -> {
                LOG.info("Run {}: {} was not delivered: larger than {} bytes", run.runId(), path, large.limit());
                yield false;
            }
            case FileIntake.Outcome.OverQuota over -> {
                LOG.info("Run {}: {} was not delivered: key {}'s files are full ({} of {} bytes)", run.runId(), path,
                        run.owner(), over.used(), over.quota());
                yield false;
            }
        };
    }
}
