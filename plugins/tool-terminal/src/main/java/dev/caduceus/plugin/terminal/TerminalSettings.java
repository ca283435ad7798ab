package dev.caduceus.plugin.terminal;

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
    static final List<String> DEFAULT_DENYLIST = List.of("API_SERVER_KEY", "OPENAI_API_KEY", "GATEWAY_PROXY_KEY",
            "TAVILY_API_KEY", "SEARXNG_API_KEY", "CADUCEUS_*");

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
            var network = tools.string("terminal.network", "full").toLowerCase(Locale.ROOT);
            if (!network.equals("full") && !network.equals("none"))
                throw new IllegalArgumentException("tools.terminal.network must be full or none, not '" + network + "'");
            return new Sandbox(tools.string("terminal.backend", "auto").toLowerCase(Locale.ROOT), network.equals("full"),
                    tools.string("terminal.sandbox.bwrap"), tools.list("terminal.sandbox.read_only", List.of()));
        }
    }

    TerminalSettings {
        requireNonNull(shell, "shell");
        requireNonNull(sandbox, "sandbox");
        envDenylist = List.copyOf(envDenylist);
        if (timeoutSeconds < 1 || maxForegroundTimeout < 1 || maxOutputChars < 100 || maxPerSession < 1)
            throw new IllegalArgumentException("tools.terminal/process limits must be positive");
    }

    static TerminalSettings from(PluginConfig tools, String approvalsMode) {
        var mode = approvalsMode.toLowerCase(Locale.ROOT);
        return new TerminalSettings(
                tools.string("terminal.shell", "/bin/bash"),
                tools.integer("terminal.timeout", 180),
                tools.integer("terminal.max_foreground_timeout", 600),
                tools.integer("terminal.max_output_chars", 50_000),
                tools.bool("terminal.allow_outside_workspace", false),
                tools.list("terminal.env_denylist", DEFAULT_DENYLIST),
                tools.integer("process.max_per_session", 8),
                Duration.ofSeconds(tools.longValue("process.max_lifetime_seconds", 3600)),
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
