package dev.caduceus.plugin.terminal;

import java.nio.file.Path;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The dangerous-command guard: normalizes a command (ANSI escapes and NUL
 * removed, NFKC, quotes around single words removed, lower case) and matches it against the
 * hardline list, then the pattern table. A guard rail, not a sandbox. Immutable; thread-safe.
 */
final class DangerousCommands {
    private static final Pattern ANSI = Pattern.compile("\u001B(?:\\[[0-?]*[ -/]*[@-~]|\\][^\u0007]*\u0007?|[@-Z\\\\-_])");
    private static final Pattern QUOTED_WORD = Pattern.compile("(['\"])([^\\s'\"]*)\\1");
    /** Up to the argument list of the same simple command. */
    private static final String ARGS = "(?:[^;&|\\n]*\\s)?";
    private static final String END = "(?=$|[\\s;&|)])";
    private static final String RECURSIVE = "(?:-[a-z]*r[a-z]*|--recursive)";
    private static final String SYSTEM_DIRS = "(?:bin|boot|dev|etc|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|home)";
    private static final String HOME = "(?:~|\\$home|\\$\\{home\\}|/root|/home/[^/\\s]+)";
    private static final String SYSTEM_DISK = "/dev/(?:sda|vda|xvda|hda|nvme0n1|mmcblk0)";

    /** A match: which rule, what to tell the user, and whether {@code always} may persist it. */
    record Match(String key, String description, boolean allowPermanent, boolean hardline) {}

    /** What the rules look at: the normalized command and the places that count as inside. */
    record Input(String command, String workspace, String stateDir, boolean cwdOutsideWorkspace) {
        boolean outside(String path) {
            return !(path.equals(workspace) || path.startsWith(workspace + "/"));
        }
    }

    private record Rule(Match match, Predicate<Input> test) {}

    private final List<Rule> hardline;
    private final List<Rule> rules;

    /** @param runningAsRoot whether the server user is root: then every download piped into a shell is hardline */
    DangerousCommands(boolean runningAsRoot) {
        this.hardline = List.of(
                hard("rm-root", "recursive delete of the root filesystem",
                        "\\brm\\s+" + ARGS + RECURSIVE + "\\s+" + ARGS + "/\\*?" + END),
                hard("fork-bomb", "fork bomb", "([\\w:]+)\\s*\\(\\)\\s*\\{\\s*\\1\\s*\\|\\s*\\1\\s*&\\s*\\}"),
                hard("disk-write", "format or overwrite of the system disk",
                        "\\bmkfs(?:\\.\\w+)?\\s+" + ARGS + SYSTEM_DISK + "|\\bdd\\s+" + ARGS + "of=" + SYSTEM_DISK),
                hard("remote-exec", "download piped into a shell as root", runningAsRoot
                        ? "\\b(?:curl|wget)\\b[^;&]*\\|\\s*(?:sudo\\s+)?(?:sh|bash|zsh|python[\\d.]*)\\b"
                        : "\\b(?:curl|wget)\\b[^;&]*\\|\\s*sudo\\s+(?:-\\S+\\s+)*(?:sh|bash|zsh|python[\\d.]*)\\b"
                          + "|\\bsudo\\s+(?:sh|bash|zsh)\\s+<\\(\\s*(?:curl|wget)\\b"));
        this.rules = List.of(
                rule("rm-root", "delete in root path", false, "\\brm\\s+" + ARGS
                        + "(?:/\\*?|~/?|\\$home/?|\\$\\{home\\}/?|/" + SYSTEM_DIRS + "/?\\*?)" + END),
                rule("disk-write", "disk format or raw device write", false,
                        "\\bmkfs(?:\\.\\w+)?\\b|\\bdd\\s+" + ARGS + "of=/dev/|>\\s*/dev/(?:sd|nvme|hd|vd|xvd|mmcblk)"),
                rule("remote-exec", "remote code execution (a download run as code)", false,
                        "\\b(?:curl|wget)\\b[^;&]*\\|\\s*(?:sudo\\s+)?(?:sh|bash|zsh|python[\\d.]*)\\b"
                        + "|\\b(?:bash|sh|zsh)\\s+<\\(\\s*(?:curl|wget)\\b"
                        + "|\\b(?:curl|wget)\\b.*\\bchmod\\s+(?:[a-z]*\\+[a-z]*x|[0-7]*[1357])\\b.*(?:&&|;)\\s*\\./"),
                new Rule(new Match("credential-write", "write to credential or Caduceus state files", false, false),
                        in -> find(in.command(), "(?:>>?\\s*|\\btee\\s+" + ARGS + "|\\b(?:cp|mv|ln|install|rsync|scp)\\s+"
                                + ARGS + ")(?:" + HOME + "/\\.(?:ssh|aws)/|\\$caduceus_home\\b|\\$\\{caduceus_home\\}|"
                                + Pattern.quote(in.stateDir()) + "(?:/|" + END + "))")),
                rule("rm-recursive", "recursive delete", true, "\\brm\\s+" + ARGS + RECURSIVE + END),
                new Rule(new Match("chmod-world", "world-writable permissions", true, false), in ->
                        find(in.command(), "\\bchmod\\s+" + ARGS + "(?:0?777|0?666|[ugo]*a[ugoa]*\\+[rx]*w|[ug]*o[ugoa]*\\+[rx]*w)"
                                + END) || recursiveOutside(in, "chmod")),
                new Rule(new Match("chown-root", "recursive chown to root", true, false), in ->
                        find(in.command(), "\\bchown\\b(?=[^;&|\\n]*\\s" + RECURSIVE + END + ")(?=[^;&|\\n]*\\sroot(?::\\S*)?" + END + ")")),
                rule("sql-destructive", "destructive SQL statement", true,
                        "\\bdrop\\s+(?:table|database)\\b|\\btruncate\\s+(?:table\\s+)?[a-z_][\\w.]*\\s*(?:;|$)"
                        + "|\\bdelete\\s+from\\b(?![^;]*\\bwhere\\b)"),
                rule("system-config", "write to system configuration", true,
                        ">>?\\s*/etc/|\\bsed\\s+" + ARGS + "-[a-z]*i\\S*\\s+" + ARGS + "/etc/"
                        + "|\\btee\\s+" + ARGS + "/(?:etc|usr|boot|sys|bin|sbin|lib\\w*)/"
                        + "|\\b(?:cp|mv|install|ln)\\s+" + ARGS + "/etc/[^\\s;&|]*\\s*(?:$|[;&|])"),
                rule("service-control", "stop or restart system services", true,
                        "\\bsystemctl\\s+" + ARGS + "(?:stop|restart|disable|mask)\\b|\\bservice\\s+\\S+\\s+stop\\b"
                        + "|\\bshutdown\\b|\\breboot\\b"),
                rule("kill-all", "kill all processes", true,
                        "\\bkill\\s+(?:-9|-kill|-sigkill|-s\\s+(?:9|kill|sigkill))\\s+-1\\b|\\bpkill\\s+-9\\b|\\bkillall\\b"),
                rule("shell-eval", "shell evaluation of a command string", true,
                        "\\b(?:bash|sh|zsh|ksh|dash)\\s+(?:-[a-z]+\\s+)*-[a-z]*c\\b|\\b(?:perl|ruby)\\s+(?:-[a-z]+\\s+)*-[a-z]*e\\b"
                        + "|\\bnode\\s+(?:-\\S+\\s+)*(?:-e|--eval|-p|--print)\\b|(?:^|[;&|(]\\s*|\\s)eval(?=\\s|$)"),
                new Rule(new Match("mass-delete", "mass deletion", true, false), in ->
                        find(in.command(), "\\bfind\\b[^;&|\\n]*\\s-delete\\b|\\bfind\\b[^;&|\\n]*\\s-exec(?:dir)?\\s+rm\\b"
                                + "|\\bxargs\\s+(?:-\\S+\\s+)*rm\\b")
                        || in.cwdOutsideWorkspace() && find(in.command(), "\\bgit\\s+clean\\s+" + ARGS + "-[a-z]*[fdx]")),
                rule("git-destructive", "destructive git operation", true,
                        "\\bgit\\s+push\\b[^;&|\\n]*\\s(?:--force(?:-with-lease)?|-f)" + END
                        + "|\\bgit\\s+reset\\s+--hard\\s+(?:[\\w.-]+/[\\w./-]+|@\\{u(?:pstream)?\\})"));
    }

    /** The first hardline or pattern match, hardline first. */
    Optional<Match> check(String command, Path workspace, Path stateDir, Path cwd) {
        var ws = workspace.toString().toLowerCase(Locale.ROOT);
        var in = new Input(normalize(command), ws, stateDir.toString().toLowerCase(Locale.ROOT),
                !(cwd.startsWith(workspace)));
        for (var r : hardline) if (r.test().test(in)) return Optional.of(r.match());
        for (var r : rules) if (r.test().test(in)) return Optional.of(r.match());
        return Optional.empty();
    }

    /** ANSI escapes and NUL removed, NFKC, quotes around single words removed, lower case. */
    static String normalize(String command) {
        var s = ANSI.matcher(command).replaceAll("").replace("\0", "");
        s = Normalizer.normalize(s, Normalizer.Form.NFKC);
        s = QUOTED_WORD.matcher(s).replaceAll("$2");
        return s.toLowerCase(Locale.ROOT);
    }

    private static boolean recursiveOutside(Input in, String command) {
        var m = Pattern.compile("\\b" + command + "\\s+" + ARGS + RECURSIVE + "\\s+" + ARGS + "((?:/|~|\\.\\.)[^\\s;&|]*)")
                .matcher(in.command());
        while (m.find()) {
            var target = m.group(1);
            if (target.startsWith("~") || target.startsWith("..") || in.outside(target.replaceAll("/+$", ""))) return true;
        }
        return false;
    }

    private static boolean find(String command, String regex) {
        return Pattern.compile(regex).matcher(command).find();
    }

    private static Rule rule(String key, String description, boolean allowPermanent, String regex) {
        var pattern = Pattern.compile(regex);
        return new Rule(new Match(key, description, allowPermanent, false), in -> pattern.matcher(in.command()).find());
    }

    private static Rule hard(String key, String description, String regex) {
        var pattern = Pattern.compile(regex);
        return new Rule(new Match(key, description, false, true), in -> pattern.matcher(in.command()).find());
    }
}
