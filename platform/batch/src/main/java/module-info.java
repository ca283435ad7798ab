/**
 * {@code caduceus batch}: the agent over a JSONL dataset, written as ShareGPT trajectories. Boots the
 * host without Jetty ({@code Assembly}, mode {@code Headless}) and runs the runtime; the server mounts its command.
 */
@SuppressWarnings("module")                                  // the qualified export names a module built later
module dev.caduceus.platform.batch {
    requires transitive dev.caduceus.platform.runtime;
    requires info.picocli;

    exports dev.caduceus.platform.batch to dev.caduceus.platform.server;
    opens dev.caduceus.platform.batch to info.picocli;       // the batch command's options
}
