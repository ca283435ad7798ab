package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Picks the backend for {@code tools.terminal.backend}: {@code sandbox} (bubblewrap, which must be
 * installed and work: a failed probe stops the plugin's start with the reason), {@code local}, or
 * {@code auto} (the default): the sandbox when the probe passes, else local with a warning that
 * names the reason. The probe runs {@code true} in the very sandbox layout commands get.
 * Stateless.
 */
final class BackendChoice {
    private static final List<Path> BWRAP = List.of(Path.of("/usr/bin/bwrap"), Path.of("/bin/bwrap"),
            Path.of("/usr/local/bin/bwrap"));

    /** The backend, and the warning for operators when {@code auto} had to fall back to local. */
    record Chosen(Backend backend, Optional<String> warning) {}

    private BackendChoice() {}

    static Chosen choose(TerminalSettings.Sandbox settings, Spawner spawner, List<Path> hidden, Path stateDir)
            throws IOException, InterruptedException {
        return switch (settings.backend()) {
            case "local" -> new Chosen(new LocalBackend(spawner), Optional.empty());
            case "sandbox" -> switch (sandbox(settings, spawner, hidden, stateDir)) {
                case Probe.Works works -> new Chosen(works.backend(), Optional.empty());
                case Probe.Fails fails -> throw new IOException("tools.terminal.backend is 'sandbox' but bubblewrap "
                        + "cannot run here: " + fails.reason() + ". Install it (Debian: apt-get install bubblewrap) or "
                        + "set tools.terminal.backend to auto or local.");
            };
            case "auto" -> switch (sandbox(settings, spawner, hidden, stateDir)) {
                case Probe.Works works -> new Chosen(works.backend(), Optional.empty());
                case Probe.Fails fails -> new Chosen(new LocalBackend(spawner), Optional.of("terminal commands run "
                        + "UNSANDBOXED on the host (" + fails.reason() + "); install bubblewrap (Debian: apt-get "
                        + "install bubblewrap) or set tools.terminal.backend: local to accept this"));
            };
            default -> throw new IOException("tools.terminal.backend must be auto, sandbox or local, not '"
                    + settings.backend() + "'");
        };
    }

    /** What the probe found. */
    private sealed interface Probe {
        record Works(SandboxBackend backend) implements Probe {}

        record Fails(String reason) implements Probe {}
    }

    private static Probe sandbox(TerminalSettings.Sandbox settings, Spawner spawner, List<Path> hidden,
                                 Path stateDir) throws IOException, InterruptedException {
        var bwrap = settings.bwrap().map(Path::of).or(BackendChoice::findBwrap);
        if (bwrap.isEmpty() || !Files.isExecutable(bwrap.get()))
            return new Probe.Fails(bwrap.map(p -> "bwrap at " + p + " is not executable")
                    .orElse("bubblewrap (bwrap) is not installed"));
        var version = run(spawner, List.of(bwrap.get().toString(), "--version"));
        if (version.exit() != 0) return new Probe.Fails("bwrap --version failed: " + version.output());
        var sessions = Files.createDirectories(stateDir.resolve("sessions"));
        var backend = new SandboxBackend(spawner, bwrap.get(), version.output(), settings.network(),
                settings.readOnly().stream().map(Path::of).toList(), hidden, sessions);
        var probeWorkspace = Files.createDirectories(stateDir.resolve("probe-workspace"));
        try {
            var process = backend.start(new Backend.Invocation(List.of("/bin/sh", "-c", "exit 0"), "probe",
                    probeWorkspace, SandboxBackend.WORKSPACE, Map.of("PATH", "/usr/bin:/bin"), null, false));
            var probe = collect(process);
            if (probe.exit() != 0)
                return new Probe.Fails("bwrap cannot create its namespaces here (" + probe.output() + ")");
        } finally {
            backend.forget("probe");
            SandboxBackend.deleteTree(probeWorkspace);
        }
        return new Probe.Works(backend);
    }

    private static Optional<Path> findBwrap() {
        var path = System.getenv("PATH");
        if (path != null) {
            for (var dir : path.split(":")) {
                if (dir.isEmpty()) continue;
                var candidate = Path.of(dir, "bwrap");
                if (Files.isExecutable(candidate)) return Optional.of(candidate);
            }
        }
        return BWRAP.stream().filter(Files::isExecutable).findFirst();
    }

    private record Ran(int exit, String output) {}

    private static Ran run(Spawner spawner, List<String> command) throws IOException, InterruptedException {
        return collect(spawner.start(new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))));
    }

    private static Ran collect(Process process) throws IOException, InterruptedException {
        process.getOutputStream().close();
        var out = new String(process.getInputStream().readNBytes(4096), StandardCharsets.UTF_8)
                + new String(process.getErrorStream().readNBytes(4096), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Ran(-1, "timed out after 10 s");
        }
        return new Ran(process.exitValue(), out.strip().replaceAll("\\s+", " "));
    }
}
