package dev.caduceus.plugin.file;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.tool.ToolContext;
import java.io.IOException;

/**
 * What the four file tools share: the settings and the per-session repeat guard. Thread-safe.
 *
 * @param settings {@code tools.file.*}
 * @param repeats  the repeat guard of {@code read_file} and {@code search_files}
 */
record FileFamily(FileSettings settings, RepeatGuard repeats) {
    FileFamily {
        requireNonNull(settings, "settings");
        requireNonNull(repeats, "repeats");
    }

    /** The path guard for this call's workspace, creating the workspace (0700) when missing. */
    PathGuard guard(ToolContext ctx) throws ToolFailure {
        try {
            PathGuard.ensureWorkspace(ctx.workspace());
        } catch (IOException e) {
            throw new ToolFailure("Cannot create the workspace " + ctx.workspace() + ": " + e.getMessage());
        }
        return new PathGuard(ctx.workspace(), settings);
    }
}
