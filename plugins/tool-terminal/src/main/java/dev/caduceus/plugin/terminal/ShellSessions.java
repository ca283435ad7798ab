package dev.caduceus.plugin.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Each session's terminal state: the working directory and the exported
 * environment, both carried from one {@code terminal} call to the next. A session starts at the
 * workspace root with the server environment minus the denylist plus
 * {@code CADUCEUS_SESSION_ID} and {@code CADUCEUS_WORKSPACE}.
 *
 * <p>State lives in memory, for at most {@value #MAX_SESSIONS} sessions (least recently used
 * dropped first). The runtime does not report session ends yet; when it does, call {@link #forget}.
 *
 * <p>Threading: thread-safe.
 */
final class ShellSessions {
    static final int MAX_SESSIONS = 1024;
    /** Variables bash maintains itself; carrying them over would be wrong or noisy. */
    private static final Set<String> SHELL_OWNED = Set.of("_", "SHLVL", "PWD");

    private final Map<String, String> baseEnv;
    private final Backend backend;
    private final Map<String, State> states = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            if (size() <= MAX_SESSIONS) return false;
            backend.forget(eldest.getKey());
            return true;
        }
    };

    /** One session's directory (a view path of the backend) and environment. Immutable. */
    record State(Path cwd, Map<String, String> env) {
        State {
            env = Map.copyOf(env);
        }
    }

    ShellSessions(Map<String, String> serverEnv, TerminalSettings settings, Backend backend) {
        this.backend = backend;
        var env = new HashMap<String, String>();
        serverEnv.forEach((k, v) -> {
            if (!settings.denied(k)) env.put(k, v);
        });
        this.baseEnv = Map.copyOf(env);
    }

    /** The session's state, created at the workspace root on first use. */
    synchronized State state(String session, Path workspace) {
        var state = states.get(session);
        if (state == null || !isDirectory(state.cwd(), workspace, session)) {
            var env = new HashMap<>(state == null ? baseEnv : state.env());
            state = new State(backend.workspaceView(workspace), env);
            states.put(session, state);
        }
        return state;
    }

    /** The environment for a command of {@code session}: its state plus the two CADUCEUS variables. */
    Map<String, String> environment(State state, String session, Path workspace) {
        var env = new HashMap<>(state.env());
        env.put("CADUCEUS_SESSION_ID", session);
        env.put("CADUCEUS_WORKSPACE", backend.workspaceView(workspace).toString());
        return env;
    }

    /**
     * Reads what the wrapper script wrote after the command ({@code $PWD\0} then {@code env -0}) and
     * makes it the session's state. A missing or empty file leaves the state unchanged.
     *
     * @param keepCwd the directory to keep instead of the recorded one (a {@code workdir} call), or null
     */
    void update(String session, Path workspace, Path stateFile, Path keepCwd) throws IOException {
        if (!Files.isRegularFile(stateFile) || Files.size(stateFile) == 0) return;
        var parts = new String(Files.readAllBytes(stateFile), StandardCharsets.UTF_8).split("\0");
        Path cwd;
        try {
            cwd = keepCwd != null ? keepCwd : Path.of(parts[0]);
        } catch (java.nio.file.InvalidPathException e) {
            return; // the command wrote the state file itself
        }
        if (!isDirectory(cwd, workspace, session)) return;
        var env = new HashMap<String, String>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) continue;
            var name = parts[i].substring(0, eq);
            if (!SHELL_OWNED.contains(name) && !name.equals("CADUCEUS_SESSION_ID") && !name.equals("CADUCEUS_WORKSPACE"))
                env.put(name, parts[i].substring(eq + 1));
        }
        synchronized (this) {
            states.put(session, new State(cwd, env));
        }
    }

    /** Drops a session's state; the hook for session end (not called by the runtime yet). */
    synchronized void forget(String session) {
        states.remove(session);
        backend.forget(session);
    }

    private boolean isDirectory(Path view, Path workspace, String session) {
        return backend.toHost(view, workspace, session).filter(Files::isDirectory).isPresent();
    }
}
