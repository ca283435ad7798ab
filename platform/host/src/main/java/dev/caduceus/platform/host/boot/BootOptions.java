package dev.caduceus.platform.host.boot;

import dev.caduceus.platform.host.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What to start.
 *
 * @param configFile  {@code --config FILE}, if given
 * @param flags       command-line settings ({@code --port} → {@code server.port}), highest precedence
 * @param lenient     skip plugins that fail instead of stopping the boot
 * @param env         the environment: the process's plus the secrets the launcher handed over (Main)
 * @param appHome     the installation directory (its {@code plugins/} is scanned), or null
 * @param clock       the platform's clock (the assembled platform's clock: plugins' {@code ctx.clock()}, run and key
 *                    timestamps); the system UTC clock unless a test host moves time by hand
 */
public record BootOptions(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                      Map<String, String> env, Path appHome, Clock clock) {
    public BootOptions {
        flags = List.copyOf(flags);
        env = Map.copyOf(env);
        java.util.Objects.requireNonNull(clock, "clock");
    }

    /** On the system UTC clock, as every real process runs. */
    public BootOptions(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                   Map<String, String> env, Path appHome) {
        this(configFile, flags, lenient, env, appHome, Clock.systemUTC());
    }
}
