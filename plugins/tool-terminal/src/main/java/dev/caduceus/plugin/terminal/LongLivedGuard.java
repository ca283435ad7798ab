package dev.caduceus.plugin.terminal;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The long-lived foreground guard: {@code nohup}, {@code disown},
 * {@code setsid}, a trailing or inline {@code &}, or a server command in the foreground is refused
 * with advice to use {@code background=true}. Skipped for {@code --help}/{@code --version}. Stateless.
 */
final class LongLivedGuard {
    private static final Pattern QUOTED = Pattern.compile("'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern LONE_AMPERSAND = Pattern.compile("(?<![&>|<])&(?![&>])");
    private static final Pattern DETACHERS = Pattern.compile("\\b(nohup|disown|setsid)\\b");
    private static final List<Pattern> SERVERS = List.of(
            Pattern.compile("\\b(?:npm|pnpm|yarn|bun)\\s+(?:run\\s+)?(?:dev|start|serve|watch)\\b"),
            Pattern.compile("\\bdocker(?:\\s+|-)compose\\s+up\\b(?![^;&|]*\\s(?:-d|--detach)\\b)"),
            Pattern.compile("\\bnext\\s+dev\\b"),
            Pattern.compile("(?:^|[\\s;&|(])(?:npx\\s+)?vite(?:\\s|$)(?!\\s*build\\b)"),
            Pattern.compile("\\b(?:nodemon|uvicorn|gunicorn)\\b"),
            Pattern.compile("\\bpython[\\d.]*\\s+-m\\s+http\\.server\\b"));

    private LongLivedGuard() {}

    /** The advice to show when {@code command} would stay in the foreground for long; empty otherwise. */
    static Optional<String> check(String command) {
        var normalized = DangerousCommands.normalize(command);
        if (normalized.contains("--help") || normalized.contains("--version")) return Optional.empty();
        var unquoted = QUOTED.matcher(normalized).replaceAll("''");
        var detacher = DETACHERS.matcher(unquoted);
        if (detacher.find()) return Optional.of(advice("'" + detacher.group(1) + "' detaches a process"));
        if (LONE_AMPERSAND.matcher(unquoted).find()) return Optional.of(advice("'&' puts a process in the background"));
        for (var server : SERVERS)
            if (server.matcher(unquoted).find()) return Optional.of(advice("it starts a server or watcher that does not exit"));
        return Optional.empty();
    }

    private static String advice(String reason) {
        return "This command would keep running after the call (" + reason + "). Run it with background=true and "
                + "manage it with the process tool (poll, log, wait, kill) instead of nohup, disown, setsid or '&'.";
    }
}
