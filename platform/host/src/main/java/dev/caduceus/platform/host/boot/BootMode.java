package dev.caduceus.platform.host.boot;

import java.nio.file.Path;

/** Which kind of boot: the state it prepares and the database it opens. */
public sealed interface BootMode {
    /**
     * {@code caduceus serve}: refuses when {@code server.enabled} is false (exit 0); creates the state
     * directory and the workspace, resolves the admin key; the database is
     * {@code $CADUCEUS_HOME/caduceus.db}.
     */
    record Serve() implements BootMode {}

    /** {@code caduceus plugins}: a scratch database, deleted at closing; the server's state is untouched. */
    record Scratch() implements BootMode {}

    /**
     * {@code caduceus batch}: creates the workspace; the database is {@code <databaseDir>/batch.db}
     * (created if missing), never the server's {@code caduceus.db}: a batch may run while a server
     * uses the same {@code $CADUCEUS_HOME}.
     */
    record Headless(Path databaseDir) implements BootMode {}

    /**
     * {@code caduceus db migrate}: the configured database (as {@link Serve}), the platform's and every
     * enabled plugin's migrations applied as the plugins start; nothing served, no key resolved.
     */
    record Migrate() implements BootMode {}
}
