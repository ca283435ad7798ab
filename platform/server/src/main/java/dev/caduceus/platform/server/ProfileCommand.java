package dev.caduceus.platform.server;

import dev.caduceus.platform.host.boot.BootException;
import dev.caduceus.platform.host.config.PlatformConfig;
import dev.caduceus.platform.host.config.Profiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caduceus profile create|list|show|delete}: profiles as state directories of their own under
 * {@code $CADUCEUS_HOME/profiles/} ({@link Profiles}). Exit status 2 for a bad or unknown name, an
 * existing one on create, the default one or a running one on delete, and a delete without {@code --yes}.
 */
@Command(name = "profile", mixinStandardHelpOptions = true,
        description = {"Manage profiles: separate state directories under $CADUCEUS_HOME/profiles/, each with its",
                "own config.yaml, .env, database, API key, plugins folder and workspace. Run one with",
                "'caduceus -p NAME serve'; its model id is NAME unless server.model_name says otherwise."},
        subcommands = {ProfileCommand.Create.class, ProfileCommand.ListProfiles.class, ProfileCommand.Show.class,
                ProfileCommand.Delete.class})
final class ProfileCommand implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.ParentCommand Main main;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    private Path base() {
        return main.baseHome();
    }

    /** {@code name} checked as a profile name (the default one allowed only when {@code orDefault}). */
    private static String name(String name, boolean orDefault) throws BootException {
        if (orDefault && name.equals(Profiles.DEFAULT)) return name;
        try {
            var valid = Profiles.validName(name);
            if (valid.endsWith("-workspace"))
                throw new IllegalArgumentException("'" + name + "' is not a profile name: names ending in -workspace"
                        + " are the profiles' workspaces");
            return valid;
        } catch (IllegalArgumentException e) {
            throw refused(e.getMessage());
        }
    }

    /** Exit status 2 with {@code message} (Main prints it as {@code caduceus: message}). */
    private static BootException refused(String message) {
        return new BootException(message, 2, null);
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create profile NAME: an empty state directory (only its owner can read it).")
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", description = "lower-case letters, digits, '-' and '_'") String name;
        @CommandLine.ParentCommand ProfileCommand profile;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var valid = name(name, false);
            if (valid.equals(Profiles.DEFAULT)) throw refused("the default profile is " + profile.base() + " itself");
            var home = Profiles.home(profile.base(), valid);
            if (Files.exists(home)) throw refused("profile '" + valid + "' already exists: " + home);
            try {
                Files.createDirectories(home.getParent());
                Files.createDirectory(home);
                if (home.getFileSystem().supportedFileAttributeViews().contains("posix"))
                    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
            } catch (IOException e) {
                throw refused("cannot create " + home + ": " + e.getMessage());
            }
            var out = spec.commandLine().getOut();
            out.println("Created profile '" + valid + "' in " + home);
            out.println("  its settings: " + home.resolve("config.yaml") + " and " + home.resolve(".env") + " (optional)");
            out.println("  its model id: " + valid + " (unless server.model_name is set)");
            out.println("  run it:       caduceus -p " + valid + " serve --port <a free port>");
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the profiles and whether a server runs on each.")
    static final class ListProfiles implements Callable<Integer> {
        @CommandLine.ParentCommand ProfileCommand profile;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            var out = spec.commandLine().getOut();
            for (var name : Profiles.list(profile.base())) {
                if (name.endsWith("-workspace")) continue;
                var home = Profiles.home(profile.base(), name);
                var running = ServeLock.holder(home).map(pid -> "serving (pid " + pid + ")").orElse("stopped");
                out.printf("%-20s %-24s %s%n", name, running, home);
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show where profile NAME keeps its state.")
    static final class Show implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;
        @CommandLine.ParentCommand ProfileCommand profile;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var valid = name(name, true);
            if (!Profiles.exists(profile.base(), valid)) throw refused("profile '" + valid + "' does not exist");
            var home = Profiles.home(profile.base(), valid);
            var out = spec.commandLine().getOut();
            out.println("profile:   " + valid);
            out.println("directory: " + home);
            out.println("config:    " + present(home.resolve("config.yaml")));
            out.println(".env:      " + present(home.resolve(".env")));
            out.println("key file:  " + present(home.resolve("api_key")));
            out.println("database:  " + present(home.resolve("caduceus.db")));
            out.println("workspace: " + PlatformConfig.defaultWorkspace(home) + " (unless tools.workspace is set)");
            out.println("model id:  " + (valid.equals(Profiles.DEFAULT) ? "hermes-agent" : valid)
                    + " (unless server.model_name is set)");
            out.println("server:    " + ServeLock.holder(home).map(pid -> "running, pid " + pid).orElse("not running"));
            return 0;
        }

        private static String present(Path file) {
            return file + (Files.exists(file) ? "" : " (none)");
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Delete profile NAME's state directory (config, .env, database, key, plugins).",
                    "Its workspace is kept. Needs --yes; refused while a server of that profile runs."})
    static final class Delete implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;
        @CommandLine.Option(names = "--yes", description = "Really delete.") boolean yes;
        @CommandLine.ParentCommand ProfileCommand profile;
        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws BootException {
            var valid = name(name, false);
            if (valid.equals(Profiles.DEFAULT)) throw refused("the default profile cannot be deleted");
            var home = Profiles.home(profile.base(), valid);
            if (!Files.isDirectory(home)) throw refused("profile '" + valid + "' does not exist");
            var holder = ServeLock.holder(home);
            if (holder.isPresent())
                throw refused("a server of profile '" + valid + "' is running (pid " + holder.get() + "); stop it first");
            if (!yes) throw refused("this deletes " + home + " and everything in it; add --yes to do it");
            try (Stream<Path> tree = Files.walk(home)) {
                for (var path : tree.sorted(Comparator.reverseOrder()).toList()) Files.delete(path);
            } catch (IOException e) {
                throw refused("cannot delete " + home + ": " + e.getMessage());
            }
            var out = spec.commandLine().getOut();
            out.println("Deleted profile '" + valid + "' (" + home + ").");
            var workspace = PlatformConfig.defaultWorkspace(home);
            if (Files.exists(workspace)) out.println("Its workspace is kept: " + workspace);
            return 0;
        }
    }
}
