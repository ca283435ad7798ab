package dev.caduceus.plugin.file;

import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * The {@code tools.file.*} keys the file tools read: their defaults and their declarations
 * ({@link FilePlugin#settings}), in one place so that {@link FileSettings} reads exactly what is
 * declared. Constants only.
 */
final class FileKeys {
    private FileKeys() {}

    static final int DEFAULT_MAX_READ_CHARS = 100_000;

    static final Setting ALLOW_OUTSIDE_WORKSPACE = Setting.bool("tools.file.allow_outside_workspace", false,
            "let the file tools reach paths outside the workspace (protected files stay refused)");
    static final Setting MAX_READ_CHARS = Setting.integer("tools.file.max_read_chars", DEFAULT_MAX_READ_CHARS, 1,
            "the largest numbered text read_file returns; a bigger read is refused with advice to use offset and limit");

    /** Both, in the order of the reference. */
    static final List<Setting> ALL = List.of(ALLOW_OUTSIDE_WORKSPACE, MAX_READ_CHARS);

    /** {@code setting}'s key inside the {@code tools} section, as {@code ctx.section("tools")} reads it. */
    static String inTools(Setting setting) {
        return setting.key().substring("tools.".length());
    }
}
