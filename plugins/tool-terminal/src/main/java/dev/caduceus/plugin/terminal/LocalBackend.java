package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Commands on the host, as the server user: one session and process group per command
 * ({@code setsid}). Nothing but the starting directory confines them: a shell can reach every path
 * the server user can.
 *
 * <p>So that nothing outlives the server, not even after {@code kill -9}, each command runs under a
 * small guard shell started with {@code setpriv --pdeathsig USR1} (util-linux): when the server
 * dies the kernel sends the guard {@code SIGUSR1}, and its trap kills the command's whole process
 * group. A command that puts itself in a new session ({@code setsid}, a daemon's double fork)
 * escapes the group; only the sandbox backend's PID namespace catches those. Without
 * {@code setpriv} the guard is left out and {@link #describe} says so.
 */
final class LocalBackend implements Backend {
    private static final List<Path> SETSID = List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"));
    private static final List<Path> SETPRIV = List.of(Path.of("/usr/bin/setpriv"), Path.of("/bin/setpriv"));
    /** The guard: forwards stdin explicitly (an asynchronous list would get /dev/null), waits, kills the group on USR1. */
    private static final String GUARD = "trap 'kill -KILL 0' USR1; exec 3<&0; \"$@\" <&3 3<&- & wait $!";

    private final Spawner spawner;
    private final Optional<Path> setsid = SETSID.stream().filter(Files::isExecutable).findFirst();
    private final Optional<Path> setpriv = SETPRIV.stream().filter(Files::isExecutable).findFirst();

    LocalBackend(Spawner spawner) {
        this.spawner = spawner;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public String describe() {
        return "local: commands run on the host as the server user, unsandboxed"
                + (setpriv.isPresent() ? "" : "; setpriv (util-linux) is missing, so a command may outlive a killed server");
    }

    @Override
    public Path workspaceView(Path workspace) {
        return workspace;
    }

    @Override
    public Path home(Path workspace) {
        return Path.of(System.getProperty("user.home"));
    }

    @Override
    public Optional<Path> toHost(Path view, Path workspace, String session) {
        return view.isAbsolute() ? Optional.of(view.normalize()) : Optional.empty();
    }

    @Override
    public String stateFileView(Path stateFile) {
        return stateFile.toString();
    }

    @Override
    public Process start(Invocation inv) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        setsid.ifPresent(p -> command.add(p.toString()));
        if (setpriv.isPresent()) command.addAll(List.of(setpriv.get().toString(), "--pdeathsig", "USR1", "--",
                "/bin/sh", "-c", GUARD, "caduceus-guard"));
        command.addAll(inv.argv());
        var builder = new ProcessBuilder(command).directory(inv.cwd().toFile());
        builder.environment().clear();
        builder.environment().putAll(inv.env());
        if (!inv.stdinPipe()) builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        return spawner.start(builder);
    }
}
