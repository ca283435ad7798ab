package dev.caduceus.platform.host.boot;

import dev.caduceus.platform.host.config.ConfigLoader;
import dev.caduceus.platform.host.outbound.GuardedResolver;
import java.net.InetAddress;
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
 * @param nameLookup  how the outbound client ({@code ctx.outbound()}) turns a host name into addresses before its
 *                    egress policy checks them; the system resolver ({@link InetAddress#getAllByName}) unless a test
 *                    host scripts the answers (a name that answers loopback, one that rebinds, a lookup that hangs),
 *                    which no real process does
 */
public record BootOptions(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                      Map<String, String> env, Path appHome, Clock clock, GuardedResolver.Lookup nameLookup) {
    public BootOptions {
        flags = List.copyOf(flags);
        env = Map.copyOf(env);
        java.util.Objects.requireNonNull(clock, "clock");
        java.util.Objects.requireNonNull(nameLookup, "nameLookup");
    }

    /** With the system resolver, as every real process runs. */
    public BootOptions(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                   Map<String, String> env, Path appHome, Clock clock) {
        this(configFile, flags, lenient, env, appHome, clock, InetAddress::getAllByName);
    }

    /** On the system UTC clock and the system resolver, as every real process runs. */
    public BootOptions(Optional<Path> configFile, List<ConfigLoader.Flag> flags, boolean lenient,
                   Map<String, String> env, Path appHome) {
        this(configFile, flags, lenient, env, appHome, Clock.systemUTC());
    }
}
