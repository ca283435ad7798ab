package dev.caduceus.platform.host.boot;

import dev.caduceus.platform.host.config.PlatformConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the tools' workspace apart from the server's own state: a workspace that is, or contains, the
 * state directory ({@code $CADUCEUS_HOME}), the key file, the config file or the database would put
 * them in reach of every terminal command and file tool, so the start is refused. Paths are compared
 * as real paths (symlinks resolved; for a path that does not exist yet, its nearest existing parent's
 * real path plus the rest). A workspace inside the state directory is allowed with a warning. Stateless.
 */
final class WorkspaceCheck {
    private static final Logger LOG = LoggerFactory.getLogger(WorkspaceCheck.class);

    private WorkspaceCheck() {}

    /**
     * @param workspace       {@code tools.workspace}
     * @param workspaceSource where it was set ({@code default}, a file, a variable)
     * @param home            the state directory
     * @param stateFiles      the key file, the config file (if any) and the database file
     * @throws BootException  (exit status 2) when the workspace holds the state directory or one of the files
     */
    static void check(Path workspace, String workspaceSource, Path home, List<Path> stateFiles) throws BootException {
        var realWorkspace = real(workspace);
        var realHome = real(home);
        Optional<Path> exposed = realHome.startsWith(realWorkspace) ? Optional.of(home)
                : stateFiles.stream().filter(f -> real(f).startsWith(realWorkspace)).findFirst();
        if (exposed.isPresent()) {
            var what = exposed.get().equals(home) ? "the state directory " + home : exposed.get().toString();
            throw new BootException("tools.workspace " + workspace + " (" + sourceName(workspaceSource)
                    + ") contains " + what + ", so the agent's tools could read the server's key, configuration "
                    + "and database. Choose a workspace outside the state directory " + home
                    + " (CADUCEUS_HOME); the default is " + PlatformConfig.defaultWorkspace(home) + ".", 2, null);
        }
        if (realWorkspace.startsWith(realHome)) {
            LOG.warn("tools.workspace {} ({}) is inside the state directory {}: with the local terminal, commands "
                            + "can reach its parent and read the key hash, configuration and database there",
                    workspace, sourceName(workspaceSource), home);
        }
    }

    private static String sourceName(String source) {
        return source.equals("default") ? "the default" : "from " + source;
    }

    /** The real path of {@code path}, or of its nearest existing ancestor with the rest appended. */
    static Path real(Path path) {
        var absolute = path.toAbsolutePath().normalize();
        var missing = new ArrayDeque<Path>();
        var existing = absolute;
        while (existing != null) {
            try {
                var resolved = existing.toRealPath();
                for (var name : missing) resolved = resolved.resolve(name);
                return resolved;
            } catch (IOException e) {
                if (existing.getFileName() == null) break;
                missing.addFirst(existing.getFileName());
                existing = existing.getParent();
            }
        }
        return absolute;
    }
}
