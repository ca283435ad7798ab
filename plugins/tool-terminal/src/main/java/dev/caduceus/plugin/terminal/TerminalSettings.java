package dev.caduceus.plugin.terminal;

import static dev.caduceus.plugin.terminal.TerminalKeys.*;
import static java.util.Objects.requireNonNull;

import dev.caduceus.spi.config.PluginConfig;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code tools.terminal.*} and {@code tools.process.*} settings plus
 * {@code approvals.mode}. Immutable.
 *
 * @param shell                 {@code tools.terminal.shell}
 * @param timeoutSeconds        {@code tools.terminal.timeout}, the default per command
 * @param maxForegroundTimeout  {@code tools.terminal.max_foreground_timeout}
 * @param maxOutputChars        {@code tools.terminal.max_output_chars}
 * @param allowOutsideWorkspace {@code tools.terminal.allow_outside_workspace} (for {@code workdir})
 * @param envDenylist           {@code tools.terminal.env_denylist}; names ending in {@code *} are prefixes
 * @param maxPerSession         {@code tools.process.max_per_session}
 * @param maxLifetime           {@code tools.process.max_lifetime_seconds}
 * @param approvalsOff          {@code approvals.mode} is {@code off}
 * @param killGrace             SIGTERM → SIGKILL delay (2 s; shorter in tests)
 * @param sandbox               where commands run ({@code tools.terminal.backend}, {@code network}, {@code sandbox.*})
 */
record TerminalSettings(String shell, int timeoutSeconds, int maxForegroundTimeout, int maxOutputChars,
                        boolean allowOutsideWorkspace, List<String> envDenylist, int maxPerSession,
                        Duration maxLifetime, boolean approvalsOff, Duration killGrace, Sandbox sandbox) {

    /**
     * The backend settings.
     *
     * @param backend  {@code tools.terminal.backend}: {@code auto} (default), {@code sandbox} or {@code local}
     * @param network  {@code tools.terminal.network}: {@code full} (default, true) or {@code none}
     * @param bwrap    {@code tools.terminal.sandbox.bwrap}: the bubblewrap binary (default: found on PATH)
     * @param readOnly {@code tools.terminal.sandbox.read_only}: more host paths mounted read-only
     */
    record Sandbox(String backend, boolean network, Optional<String> bwrap, List<String> readOnly) {
        Sandbox {
            requireNonNull(backend, "backend");
            requireNonNull(bwrap, "bwrap");
            readOnly = List.copyOf(readOnly);
        }

        static Sandbox from(PluginConfig tools) {
            var network = tools.string(inTools(NETWORK), DEFAULT_NETWORK).toLowerCase(Locale.ROOT);
            if (!network.equals("full") && !network.equals("none"))
                throw new IllegalArgumentException("tools.terminal.network must be full or none, not '" + network + "'");
            return new Sandbox(tools.string(inTools(BACKEND), DEFAULT_BACKEND).toLowerCase(Locale.ROOT),
                    network.equals("full"), tools.string(inTools(BWRAP)), tools.list(inTools(READ_ONLY), List.of()));
        }
    }

    TerminalSettings {
        requireNonNull(shell, "shell");
        requireNonNull(sandbox, "sandbox");
        envDenylist = List.copyOf(envDenylist);
        if (timeoutSeconds < 1 || maxForegroundTimeout < 1 || maxOutputChars < MIN_OUTPUT_CHARS || maxPerSession < 1)
            throw new IllegalArgumentException("tools.terminal/process limits must be positive");
    }

    static TerminalSettings from(PluginConfig tools, String approvalsMode) {
        var mode = approvalsMode.toLowerCase(Locale.ROOT);
        return new TerminalSettings(
                tools.string(inTools(SHELL), DEFAULT_SHELL),
                tools.integer(inTools(TIMEOUT), DEFAULT_TIMEOUT),
                tools.integer(inTools(MAX_FOREGROUND_TIMEOUT), DEFAULT_MAX_FOREGROUND_TIMEOUT),
                tools.integer(inTools(MAX_OUTPUT_CHARS), DEFAULT_MAX_OUTPUT_CHARS),
                tools.bool(inTools(ALLOW_OUTSIDE_WORKSPACE), false),
                tools.list(inTools(ENV_DENYLIST), DEFAULT_DENYLIST),
                tools.integer(inTools(MAX_PER_SESSION), DEFAULT_MAX_PER_SESSION),
                Duration.ofSeconds(tools.longValue(inTools(MAX_LIFETIME), DEFAULT_MAX_LIFETIME_SECONDS)),
                mode.equals("off"),
                Duration.ofSeconds(2),
                Sandbox.from(tools));
    }

    /** Whether {@code name} is removed from the child environment ({@code tools.terminal.env_denylist}); {@code CADUCEUS_*} always is. */
    boolean denied(String name) {
        if (name.startsWith("CADUCEUS_")) return true;
        for (var entry : envDenylist) {
            if (entry.endsWith("*") ? name.startsWith(entry.substring(0, entry.length() - 1)) : name.equals(entry))
                return true;
        }
        return false;
    }

    TerminalSettings withKillGrace(Duration grace) {
        return new TerminalSettings(shell, timeoutSeconds, maxForegroundTimeout, maxOutputChars, allowOutsideWorkspace,
                envDenylist, maxPerSession, maxLifetime, approvalsOff, grace, sandbox);
    }
}
