package dev.caduceus.distribution;

/**
 * {@link AgentAttacks} on the local backend: commands run as the server user, so only what does
 * not need an operating-system boundary is asserted (secrets out of the environment and the key
 * file, redaction, the file tools' identity check, the API refusing the agent, no survivors of
 * {@code kill -9}); reading the database or deleting outside the workspace are skipped, with the
 * reason, because a local shell can do both.
 */
class LocalAttacksIT extends AgentAttacks {
    @Override
    String backend() {
        return "local";
    }

    @Override
    boolean containsTheFilesystem() {
        return false;
    }
}
