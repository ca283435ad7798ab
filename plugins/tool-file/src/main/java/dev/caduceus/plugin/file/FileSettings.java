package dev.caduceus.plugin.file;

import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.PlatformContext;
import java.nio.file.Path;

/**
 * The file tools' settings: {@code tools.file.allow_outside_workspace},
 * {@code tools.file.max_read_chars}, plus the two directories the protected-file rules name.
 *
 * @param stateDir     {@code $CADUCEUS_HOME} (its {@code api_key} and {@code config.yaml} are protected)
 * @param home         the server user's home ({@code ~})
 * @param workspace    {@code tools.workspace}, the one place under {@code $CADUCEUS_HOME} the tools may reach
 * @param allowOutside whether paths outside the workspace are allowed
 * @param maxReadChars the largest numbered output {@code read_file} returns
 * @param protectedPaths the host's protected paths ({@code GlobalConfig.protectedPaths}: the state
 *                     directory and the configuration file wherever it is)
 */
record FileSettings(Path stateDir, Path home, Path workspace, boolean allowOutside, int maxReadChars,
                    java.util.List<Path> protectedPaths) {
    FileSettings {
        requireNonNull(stateDir, "stateDir");
        requireNonNull(home, "home");
        requireNonNull(workspace, "workspace");
        if (maxReadChars <= 0) throw new IllegalArgumentException("tools.file.max_read_chars must be > 0");
        protectedPaths = java.util.List.copyOf(protectedPaths);
    }

    /** Reads {@code tools.file.*} from the host. */
    static FileSettings from(PlatformContext ctx) {
        var tools = ctx.section("tools");
        var global = ctx.global();
        return new FileSettings(global.stateDir(), Path.of(System.getProperty("user.home")), global.workspace(),
                tools.bool(FileKeys.inTools(FileKeys.ALLOW_OUTSIDE_WORKSPACE), false),
                tools.integer(FileKeys.inTools(FileKeys.MAX_READ_CHARS), FileKeys.DEFAULT_MAX_READ_CHARS),
                global.protectedPaths());
    }
}
