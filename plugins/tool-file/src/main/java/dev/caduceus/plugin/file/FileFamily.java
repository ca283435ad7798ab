package dev.caduceus.plugin.file;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.tool.ToolContext;
import java.io.IOException;

/**
 * What the four file tools share: the settings, the per-session repeat guard and the protected
 * files' identities. Thread-safe.
 *
 * @param settings       {@code tools.file.*}
 * @param repeats        the repeat guard of {@code read_file} and {@code search_files}
 * @param protectedFiles the protected files, statted again for each call's guard
 */
record FileFamily(FileSettings settings, RepeatGuard repeats, ProtectedFiles protectedFiles) {
    FileFamily {
        requireNonNull(settings, "settings");
        requireNonNull(repeats, "repeats");
        requireNonNull(protectedFiles, "protectedFiles");
    }

    FileFamily(FileSettings settings, RepeatGuard repeats) {
        this(settings, repeats, new ProtectedFiles(settings));
    }

    /** The path guard for this call's workspace, creating the workspace (0700) when missing. */
    PathGuard guard(ToolContext ctx) throws ToolFailure {
        try {
            PathGuard.ensureWorkspace(ctx.workspace());
        } catch (IOException e) {
            throw new ToolFailure("Cannot create the workspace " + ctx.workspace() + ": " + e.getMessage());
        }
        return new PathGuard(ctx.workspace(), settings, protectedFiles.current());
    }
}
