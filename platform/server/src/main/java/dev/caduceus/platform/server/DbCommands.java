package dev.caduceus.platform.server;

import dev.caduceus.platform.runtime.assembly.Assembly;
import dev.caduceus.platform.host.boot.BootSteps;
import dev.caduceus.platform.host.boot.BootOptions;
import dev.caduceus.platform.host.boot.BootMode;
import dev.caduceus.platform.host.boot.Applied;
import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.boot.DatabaseCheck;
import dev.caduceus.platform.host.store.Script;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code caduceus db migrate|check}: the configured database ({@code database.url}, else
 * {@code $CADUCEUS_HOME/caduceus.db}) brought up to this version's migrations, or compared with them.
 * Both work beside running servers. Exit status: 0 done / up to date; 1 a migration failed, or (check)
 * one is pending or the database is newer than this version; 2 the database cannot be reached or is
 * misconfigured.
 */
final class DbCommands {
    private DbCommands() {}

    @Command(name = "db", mixinStandardHelpOptions = true,
            description = {"The database: SQLite ($CADUCEUS_HOME/caduceus.db, the default) or",
                    "PostgreSQL (database.url, CADUCEUS_DATABASE_URL), shared by every node.",
                    "Each owner (the platform, each plugin with tables) has numbered",
                    "migrations; a start applies the pending ones. See docs/database.md."},
            subcommands = {Migrate.class, Check.class})
    static final class Group implements Callable<Integer> {
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;
        @CommandLine.ParentCommand Main main;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return 2;
        }
    }

    @Command(name = "migrate", mixinStandardHelpOptions = true,
            description = {"Apply the pending migrations: the platform's and each enabled plugin's.",
                    "The plugins start (each applies its migrations first, as at 'serve')",
                    "and stop again; nothing is served, no key is needed.",
                    "Nodes starting or migrating at once take turns (a lock in PostgreSQL).",
                    "Prints, per owner, what it applied or 'up to date'.",
                    "Exit status: 0 done; 1 a migration failed (rolled back) or the database",
                    "is newer than this version; 2 the database cannot be reached or is",
                    "misconfigured."})
    static final class Migrate implements Callable<Integer> {
        @CommandLine.Mixin Main.ConfigOptions options = new Main.ConfigOptions();
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;
        @CommandLine.ParentCommand Group group;

        @Override
        public Integer call() throws BootException {
            var out = spec.commandLine().getOut();
            try (var boot = Assembly.assemble(options.toPlatformOptions(List.of(), group.main.env()), new BootMode.Migrate())) {
                out.println("Database: " + engine(boot.database().dialect()) + " " + boot.database().describe());
                var applied = boot.migrations();
                int width = applied.stream().mapToInt(a -> a.owner().length()).max().orElse(8);
                for (var owner : applied) out.println("  " + pad(owner.owner(), width) + "  " + describe(owner));
                long now = applied.stream().mapToLong(a -> a.applied().size()).sum();
                out.println(now == 0 ? "Up to date." : "Applied " + now + " migration" + (now == 1 ? "" : "s") + ".");
            }
            return 0;
        }

        private static String describe(Applied owner) {
            if (owner.applied().isEmpty()) return "up to date (V" + owner.version() + ")";
            return "applied " + owner.applied().stream().map(Migrate::name).collect(Collectors.joining(", "))
                    + " (now V" + owner.version() + ")";
        }

        private static String name(Script s) {
            return "V" + s.version() + " " + s.description();
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Compare the database's migrations with this version's; list the nodes.",
                    "Per owner: the version the database is at and the newest this version",
                    "knows (the platform's, and those in the plugin jars for this engine);",
                    "then the nodes' leases (every server on the database renews one every",
                    "2 s). Changes nothing.",
                    "Exit status: 0 reachable and up to date; 1 a migration is pending",
                    "('caduceus db migrate') or the database is newer than this version;",
                    "2 the database cannot be reached or is misconfigured."})
    static final class Check implements Callable<Integer> {
        @CommandLine.Option(names = "--config", paramLabel = "FILE",
                description = "Configuration file (default: $CADUCEUS_HOME/config.yaml, if present).")
        java.nio.file.Path config;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;
        @CommandLine.ParentCommand Group group;

        @Override
        public Integer call() throws BootException {
            var options = new BootOptions(java.util.Optional.ofNullable(config), List.of(), false, group.main.env(),
                    Main.appHome());
            var plugins = BootSteps.surveyPlugins(options);
            DatabaseCheck check;
            try (var db = BootSteps.connectStateDatabase(options)) {
                try {
                    check = DatabaseCheck.of(db, plugins);
                } catch (dev.caduceus.spi.store.PluginDatabase.StoreException e) {
                    throw new BootException("Cannot read " + db.describe() + ": " + e.getMessage(), 2, e);
                }
            }
            print(check, Instant.now(), spec.commandLine().getOut());
            return check.exitCode();
        }
    }

    /** The report, as {@code db check} prints it. */
    static void print(DatabaseCheck check, Instant now, PrintWriter out) {
        out.println("Database: " + check.engine() + " " + check.location());
        out.println("Migrations (applied / known by this version):");
        int width = check.owners().stream().mapToInt(o -> o.owner().length()).max().orElse(8);
        for (var o : check.owners()) {
            out.println("  " + pad(o.owner(), width) + "  " + pad("V" + o.applied() + " / V" + o.known(), 11) + "  "
                    + verdict(o));
        }
        out.println("Nodes:");
        if (check.nodes().isEmpty()) {
            out.println("  none");
        } else {
            out.printf("  %-36s %-24s %8s  %-20s %s%n", "NODE", "HOST", "PID", "STARTED", "LEASE AGE");
            for (var n : check.nodes()) {
                out.printf("  %-36s %-24s %8d  %-20s %ds%s%n", n.nodeId(), n.host(), n.pid(), second(n.started()),
                        n.age(now).toSeconds(), n.stale(now) ? " (stale: the node is gone)" : "");
            }
        }
        long pending = check.owners().stream().filter(o -> o.state() == DatabaseCheck.State.PENDING).count();
        long newer = check.owners().stream().filter(o -> o.state() == DatabaseCheck.State.NEWER).count();
        if (check.exitCode() == 0) out.println("Up to date.");
        else if (newer > 0) out.println("The database is newer than this version of Caduceus for " + newer + " owner(s): "
                + "run the release that migrated it.");
        else if (pending > 0) out.println(pending + " owner(s) with pending migrations: run 'caduceus db migrate' "
                + "(a start applies them too).");
        else out.println("A plugin cannot run on this engine; disable it (plugins.disabled).");
    }

    private static String verdict(DatabaseCheck.Owner o) {
        return switch (o.state()) {
            case CURRENT -> "up to date";
            case PENDING -> "pending: 'caduceus db migrate' takes it to V" + o.known();
            case NEWER -> "NEWER than this version knows (V" + o.known() + "): migrated by a newer release";
            case OFF -> "off (" + o.note() + ")";
            case NO_JAR -> "no plugin jar here";
            case UNSUPPORTED -> "cannot run here: " + o.note();
        };
    }

    private static String engine(dev.caduceus.spi.store.PluginDatabase.Dialect dialect) {
        return dev.caduceus.platform.host.store.Migrations.folder(dialect);
    }

    private static String second(Instant instant) {
        return instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().replace('T', ' ').replace("Z", "");
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
