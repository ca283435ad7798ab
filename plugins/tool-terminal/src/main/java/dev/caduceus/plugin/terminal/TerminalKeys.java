package dev.caduceus.plugin.terminal;

import dev.caduceus.spi.config.PluginConfig.Setting;
import java.util.List;

/**
 * The {@code tools.terminal.*} and {@code tools.process.*} keys this plugin reads: their defaults and
 * their declarations ({@link TerminalPlugin#settings}), in one place so that {@link TerminalSettings}
 * reads exactly what is declared. Constants only.
 */
final class TerminalKeys {
    private TerminalKeys() {}

    static final String DEFAULT_BACKEND = "auto";
    static final String DEFAULT_NETWORK = "full";
    static final String DEFAULT_SHELL = "/bin/bash";
    static final int DEFAULT_TIMEOUT = 180;
    static final int DEFAULT_MAX_FOREGROUND_TIMEOUT = 600;
    static final int DEFAULT_MAX_OUTPUT_CHARS = 50_000;
    static final int MIN_OUTPUT_CHARS = 100;
    static final List<String> DEFAULT_DENYLIST = List.of("API_SERVER_KEY", "OPENAI_API_KEY", "GATEWAY_PROXY_KEY",
            "TAVILY_API_KEY", "SEARXNG_API_KEY", "CADUCEUS_*");
    static final int DEFAULT_MAX_PER_SESSION = 8;
    static final long DEFAULT_MAX_LIFETIME_SECONDS = 3600;

    static final Setting BACKEND = Setting.choice("tools.terminal.backend", DEFAULT_BACKEND,
            List.of("auto", "sandbox", "local"),
            "where commands run: in the bubblewrap sandbox when it works, else on the host with a warning (auto), "
                    + "only in the sandbox (sandbox), or directly on the host (local)");
    static final Setting NETWORK = Setting.choice("tools.terminal.network", DEFAULT_NETWORK, List.of("full", "none"),
            "whether sandboxed commands share the host's network (full) or get only a private loopback (none)");
    static final Setting BWRAP = Setting.string("tools.terminal.sandbox.bwrap", null,
            "the bubblewrap binary the sandbox runs (unset: bwrap found on PATH)");
    static final Setting READ_ONLY = Setting.list("tools.terminal.sandbox.read_only", "[]",
            "more host paths mounted read-only, at the same place, inside the sandbox");
    static final Setting SHELL = Setting.string("tools.terminal.shell", DEFAULT_SHELL, "the shell that runs commands");
    static final Setting TIMEOUT = Setting.integer("tools.terminal.timeout", DEFAULT_TIMEOUT, 1,
            "seconds a foreground command may run when the call sets no timeout");
    static final Setting MAX_FOREGROUND_TIMEOUT = Setting.integer("tools.terminal.max_foreground_timeout",
            DEFAULT_MAX_FOREGROUND_TIMEOUT, 1,
            "the longest timeout, in seconds, a foreground command may ask for (longer work runs in the background)");
    static final Setting MAX_OUTPUT_CHARS = Setting.integer("tools.terminal.max_output_chars", DEFAULT_MAX_OUTPUT_CHARS,
            MIN_OUTPUT_CHARS, "a longer command output keeps only its head and tail around a truncation notice");
    static final Setting ALLOW_OUTSIDE_WORKSPACE = Setting.bool("tools.terminal.allow_outside_workspace", false,
            "let a command's workdir be outside the workspace");
    static final Setting ENV_DENYLIST = Setting.list("tools.terminal.env_denylist",
            "[" + String.join(", ", DEFAULT_DENYLIST) + "]",
            "environment variables removed from commands' environment (a trailing * matches a prefix; CADUCEUS_* always are)");
    static final Setting MAX_PER_SESSION = Setting.integer("tools.process.max_per_session", DEFAULT_MAX_PER_SESSION, 1,
            "background processes one session may have running at once");
    static final Setting MAX_LIFETIME = Setting.integer("tools.process.max_lifetime_seconds",
            DEFAULT_MAX_LIFETIME_SECONDS, 1, "seconds after which a background process is killed");

    /** Everything above, in the order of the reference. */
    /** {@code approvals.mode}: whether a dangerous command waits for a person (the host keeps the waiting). */
    static final Setting APPROVALS_MODE = Setting.choice("approvals.mode", "manual", List.of("manual", "off"),
            "dangerous terminal commands wait for a person's answer (manual) or run without asking (off)");

    static final List<Setting> ALL = List.of(BACKEND, NETWORK, BWRAP, READ_ONLY, SHELL, TIMEOUT,
            MAX_FOREGROUND_TIMEOUT, MAX_OUTPUT_CHARS, ALLOW_OUTSIDE_WORKSPACE, ENV_DENYLIST, MAX_PER_SESSION,
            MAX_LIFETIME, APPROVALS_MODE);

    /** {@code setting}'s key inside the {@code tools} section, as {@code ctx.section("tools")} reads it. */
    static String inTools(Setting setting) {
        return setting.key().substring("tools.".length());
    }
}
