package dev.caduceus.distribution;

import dev.caduceus.platform.testkit.SandboxAvailable;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link AgentAttacks} on the bubblewrap sandbox, reached through the default backend ({@code auto})
 * as a fresh install gets it: every attack must fail. CI installs bubblewrap.
 */
@ExtendWith(SandboxAvailable.class)
class SandboxAttacksIT extends AgentAttacks {
    @Override
    String backend() {
        return null;
    }

    @Override
    boolean containsTheFilesystem() {
        return true;
    }
}
