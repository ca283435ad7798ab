package dev.caduceus.plugin.files;

import dev.caduceus.spi.PlatformContext;
import dev.caduceus.spi.config.ConfigException;
import dev.caduceus.spi.config.PluginConfig.Setting;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code files} section, read once at start. Immutable.
 *
 * @param maxBytes   {@code files.max_bytes}: the largest file one upload may hold
 * @param quotaBytes {@code files.quota_bytes}: what one key's files may hold together
 * @param dir        {@code files.dir}: where the bytes are kept (a directory every node shares, on several nodes)
 * @param outputs    {@code files.outputs}: whether what a run's agent writes under {@code outputs/} is delivered
 * @param outputsMaxFiles {@code files.outputs_max_files}: at most this many of those files a run
 */
public record FilesSettings(long maxBytes, long quotaBytes, Path dir, boolean outputs, int outputsMaxFiles) {
    public static final long DEFAULT_MAX_BYTES = 512L * 1024 * 1024;
    public static final long DEFAULT_QUOTA_BYTES = 10L * 1024 * 1024 * 1024;

    public static final Setting MAX_BYTES = Setting.integer("files.max_bytes", DEFAULT_MAX_BYTES, 1,
            "the largest file one upload to /v1/files may hold (streamed to disk, never held in memory)");
    public static final Setting QUOTA_BYTES = Setting.integer("files.quota_bytes", DEFAULT_QUOTA_BYTES, 1,
            "what one key's files may hold together; an upload past it is refused");
    public static final Setting DIR = Setting.string("files.dir", null,
            "where uploaded files are kept (unset: $CADUCEUS_HOME/files); on several nodes, a directory they all share");

    public static final Setting OUTPUTS = Setting.bool("files.outputs", true,
            "files a run's agent creates or changes under the workspace's outputs/ are delivered to the user (as with deliver_file)");
    public static final Setting OUTPUTS_MAX_FILES = Setting.integer("files.outputs_max_files", 20, 1,
            "at most this many files under outputs/ are delivered for one run (the rest stay in the workspace)");

    /** The settings as before {@code files.outputs}: for tests that only store. */
    public FilesSettings(long maxBytes, long quotaBytes, Path dir) {
        this(maxBytes, quotaBytes, dir, true, 20);
    }

    public static final List<Setting> ALL = List.of(MAX_BYTES, QUOTA_BYTES, DIR, OUTPUTS, OUTPUTS_MAX_FILES);

    public static FilesSettings from(PlatformContext ctx) {
        var section = ctx.section("files");
        var dir = section.string("dir").map(text -> {
            try {
                return Path.of(text.startsWith("~/") ? System.getProperty("user.home") + text.substring(1) : text);
            } catch (InvalidPathException e) {
                throw new ConfigException(DIR.key(), "files.dir is not a path: " + text);
            }
        }).orElse(ctx.global().stateDir().resolve("files"));
        return new FilesSettings(section.longValue("max_bytes", DEFAULT_MAX_BYTES),
                section.longValue("quota_bytes", DEFAULT_QUOTA_BYTES), dir.toAbsolutePath().normalize(),
                section.bool("outputs", true), section.integer("outputs_max_files", 20));
    }
}
